package sender

import (
	"bytes"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// headerSet is the header as Header.Set builds it, the reference the prebuilt one must equal.
func headerSet(r domain.WebhookRequest) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set("webhook-id", r.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(r.Timestamp.Unix(), 10))
	h.Set("webhook-signature", r.Signature)
	return h
}

func TestTheHeaderIsTheOneHeaderSetBuildsByteForByte(t *testing.T) {
	for _, r := range []domain.WebhookRequest{
		{ID: "0192f5c4-8a3e-7c1d-9b2a-5e6f7a8b9c0d", Timestamp: time.Unix(1700000000, 0), Signature: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="},
		{ID: "evt_1", Timestamp: time.Unix(0, 0), Signature: "v1,abc v1,def"}, // two secrets during a rotation
		{ID: "", Timestamp: time.Unix(-1, 0), Signature: ""},
		{ID: "ünïcødé \"quoted\"", Timestamp: time.Unix(1<<40, 999), Signature: "v1,\\escaped"},
	} {
		got, want := header(r), headerSet(r)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("header %v, want %v", got, want)
		}
		var gotWire, wantWire bytes.Buffer
		for h, out := range map[*http.Header]*bytes.Buffer{&got: &gotWire, &want: &wantWire} {
			req, err := http.NewRequest(http.MethodPost, "http://hooks.example.com/in", bytes.NewReader([]byte(`{}`)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = *h
			if err := req.Write(out); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(gotWire.Bytes(), wantWire.Bytes()) {
			t.Fatalf("on the wire:\n%s\nwant\n%s", gotWire.Bytes(), wantWire.Bytes())
		}
	}
}
