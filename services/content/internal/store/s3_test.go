package store_test

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // the checksum under test
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/internal/store/storetest"
)

func newS3(t *testing.T) (*store.S3, string) {
	t.Helper()
	s, err := store.NewS3(storetest.S3Config(t))
	if err != nil {
		t.Fatal(err)
	}
	bucket := storetest.Bucket(t, s, "s3test")
	ctx := context.Background()
	if err := s.EnsureBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureBucket(ctx, bucket); err != nil {
		t.Fatalf("a second EnsureBucket of an existing bucket: %v", err)
	}
	return s, bucket
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

func md5hex(b []byte) string {
	s := md5.Sum(b) //nolint:gosec // checksum
	return hex.EncodeToString(s[:])
}

// onlyReader hides every interface but io.Reader, as a request body does.
type onlyReader struct{ io.Reader }

func TestPutStreamsAndReportsSizeAndMD5(t *testing.T) {
	s, bucket := newS3(t)
	ctx := context.Background()
	cases := []struct {
		name string
		size int
	}{
		{"smaller than one part (a single PutObject)", 1 << 20},
		{"several parts (a multipart upload)", 20 << 20},
		{"empty", 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(tc.size, uint64(i))
			key := "put/" + tc.name
			n, sum, err := s.Put(ctx, bucket, key, "application/octet-stream", onlyReader{bytes.NewReader(data)})
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(tc.size) || sum != md5hex(data) {
				t.Fatalf("Put = %d %s, want %d %s", n, sum, tc.size, md5hex(data))
			}
			hn, hsum, err := s.Hash(ctx, bucket, key)
			if err != nil || hn != n || hsum != sum {
				t.Fatalf("Hash of the stored object = %d %s %v", hn, hsum, err)
			}
		})
	}
}

func TestPutOfABodyHeldInMemorySendsWhatIsLeftOfIt(t *testing.T) {
	s, bucket := newS3(t)
	ctx := context.Background()
	data := randomBytes(300_000, 9)
	r := bytes.NewReader(data)
	if _, err := r.Seek(1000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	n, sum, err := s.Put(ctx, bucket, "put/in-memory", "image/png", r)
	if err != nil || n != int64(len(data)-1000) || sum != md5hex(data[1000:]) {
		t.Fatalf("Put = %d %s %v, want %d %s", n, sum, err, len(data)-1000, md5hex(data[1000:]))
	}
	if hn, hsum, err := s.Hash(ctx, bucket, "put/in-memory"); err != nil || hn != n || hsum != sum {
		t.Fatalf("Hash of the stored object = %d %s %v", hn, hsum, err)
	}
}

// failingAfter returns err once limit bytes were read, like a size bound on a request body.
type failingAfter struct {
	r     io.Reader
	limit int64
	read  int64
	err   error
}

func (f *failingAfter) Read(p []byte) (int, error) {
	if f.read >= f.limit {
		return 0, f.err
	}
	if rem := f.limit - f.read; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := f.r.Read(p)
	f.read += int64(n)
	return n, err
}

func TestPutOfABodyThatFailsLeavesNothingBehind(t *testing.T) {
	s, bucket := newS3(t)
	ctx := context.Background()
	tooLarge := errs.E(errs.TooLarge, "the file is larger than allowed")
	body := &failingAfter{r: bytes.NewReader(randomBytes(30<<20, 7)), limit: 12 << 20, err: tooLarge}
	_, _, err := s.Put(ctx, bucket, "put/too-large", "", body)
	if !errors.Is(err, tooLarge) {
		t.Fatalf("Put = %v, want the body's own error", err)
	}
	if _, err := s.Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("put/too-large")}); err == nil {
		t.Fatal("an object exists after the failed upload")
	}
	if ups := storetest.PendingUploads(t, s.Client(), bucket); len(ups) != 0 {
		t.Fatalf("multipart uploads left open: %v", ups)
	}
}

func putPart(t *testing.T, url string, data []byte) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT part: %d %s", resp.StatusCode, b)
	}
	return resp.Header.Get("ETag")
}

func TestAMultipartUploadThroughPresignedURLsCompletesAfterAWrongETag(t *testing.T) {
	s, bucket := newS3(t)
	ctx := context.Background()
	const chunk = 5 << 20
	data := randomBytes(2*chunk+1234, 11)
	key := "multi/file.aep"
	id, err := s.StartMultipart(ctx, bucket, key, "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	var parts []domain.CompletedPart
	for n := int32(1); n <= 3; n++ {
		url, err := s.PresignPart(ctx, bucket, key, id, n, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := int(n-1)*chunk, min(len(data), int(n)*chunk)
		parts = append(parts, domain.CompletedPart{Number: n, ETag: putPart(t, url, data[lo:hi])})
	}

	wrong := append([]domain.CompletedPart(nil), parts...)
	wrong[1].ETag = `"0123456789abcdef0123456789abcdef"`
	for name, ps := range map[string][]domain.CompletedPart{"a wrong etag": wrong, "a part never uploaded": append(parts[:3:3], domain.CompletedPart{Number: 4, ETag: parts[0].ETag})} {
		if err := s.CompleteMultipart(ctx, bucket, key, id, ps); errs.KindOf(err) != errs.Invalid {
			t.Fatalf("complete with %s = %v, want an Invalid error", name, err)
		}
	}
	if _, ok := storetest.PendingUploads(t, s.Client(), bucket)[key]; !ok {
		t.Fatal("the upload was closed by a refused completion")
	}
	if err := s.CompleteMultipart(ctx, bucket, key, id, parts); err != nil {
		t.Fatalf("complete with the right parts: %v", err)
	}
	n, sum, err := s.Hash(ctx, bucket, key)
	if err != nil || n != int64(len(data)) || sum != md5hex(data) {
		t.Fatalf("Hash = %d %s %v, want %d %s", n, sum, err, len(data), md5hex(data))
	}
	if err := s.CompleteMultipart(ctx, bucket, key, id, parts); err != nil {
		t.Fatalf("completing an upload already completed (a retried request): %v", err)
	}
}

func TestAbortDropsAnOpenUpload(t *testing.T) {
	s, bucket := newS3(t)
	ctx := context.Background()
	id, err := s.StartMultipart(ctx, bucket, "abort/me", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AbortMultipart(ctx, bucket, "abort/me", id); err != nil {
		t.Fatal(err)
	}
	if ups := storetest.PendingUploads(t, s.Client(), bucket); len(ups) != 0 {
		t.Fatalf("uploads still open: %v", ups)
	}
	if err := s.AbortMultipart(ctx, bucket, "abort/me", id); err != nil {
		t.Fatalf("aborting twice: %v", err)
	}
}

func TestGetOfAMissingObjectIsNotFound(t *testing.T) {
	s, bucket := newS3(t)
	if _, err := s.Get(context.Background(), bucket, "nope"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Get = %v, want NotFound", err)
	}
}

func TestURLIsPathStyleUnderThePublicBase(t *testing.T) {
	s, err := store.NewS3(store.S3Config{Endpoint: "http://minio:9000", PublicURL: "https://files.example/"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.URL("templates", "projects/1/a b.aep"), "https://files.example/templates/projects/1/a%20b.aep"; got != want {
		t.Fatalf("URL = %s, want %s", got, want)
	}
}

// An object storage that does not answer makes media operations Unavailable (503), not a 500.
func TestAnUnreachableStorageIsUnavailable(t *testing.T) {
	cfg := storetest.S3Config(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoint = "http://" + ln.Addr().String()
	_ = ln.Close() // nothing listens there any more
	s, err := store.NewS3(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Side by side: each call goes through the client's retries.
	ops := map[string]func() error{
		"Put": func() error {
			_, _, err := s.Put(ctx, "media", "a/b.png", "image/png", bytes.NewReader([]byte("png")))
			return err
		},
		"Get":            func() error { _, err := s.Get(ctx, "media", "a/b.png"); return err },
		"StartMultipart": func() error { _, err := s.StartMultipart(ctx, "media", "a/c.aep", ""); return err },
		"Delete":         func() error { return s.Delete(ctx, "media", "a/b.png") },
	}
	results := make(map[string]error, len(ops))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, op := range ops {
		wg.Go(func() {
			err := op()
			mu.Lock()
			results[name] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	for name, err := range results {
		if e, ok := errs.As(err); !ok || e.Kind != errs.Unavailable {
			t.Errorf("%s on an unreachable storage: %v, want Unavailable", name, err)
		}
	}
}

// Part buffers are reused from one upload to the next: each upload stores its own bytes
// only, whatever the buffers held before (a shorter upload after a longer one, a last part
// shorter than the part before, a single PutObject, an empty file), and uploads side by side
// never share a buffer.
func TestUploadsOneAfterAnotherAndSideBySideStoreOnlyTheirOwnBytes(t *testing.T) {
	s, bucket := newS3(t) // 5 MiB parts, 2 in flight
	ctx := context.Background()
	put := func(t *testing.T, key string, data []byte) {
		t.Helper()
		n, sum, err := s.Put(ctx, bucket, key, "", onlyReader{bytes.NewReader(data)})
		if err != nil || n != int64(len(data)) || sum != md5hex(data) {
			t.Errorf("Put %s = %d %s %v, want %d %s", key, n, sum, err, len(data), md5hex(data))
			return
		}
		body, err := s.Get(ctx, bucket, key)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = body.Close() }()
		if got, err := io.ReadAll(body); err != nil || !bytes.Equal(got, data) {
			t.Errorf("object %s holds %d bytes (%v) that are not the %d uploaded", key, len(got), err, len(data))
		}
	}
	for i, size := range []int{17<<20 + 3, 7 << 20, 5 << 20, 1 << 20, 0, 6<<20 + 1} {
		put(t, fmt.Sprintf("seq/%d", i), randomBytes(size, uint64(100+i)))
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() { put(t, fmt.Sprintf("side/%d", i), randomBytes(11<<20+i, uint64(200+i))) })
	}
	wg.Wait()
}

// endsAfter reads r until limit bytes were read, then calls before and ends with err: a
// request body cut short.
type endsAfter struct {
	r      io.Reader
	limit  int64
	read   int64
	before func()
	err    error
}

func (e *endsAfter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if e.read += int64(n); e.read >= e.limit {
		e.before()
		return n, e.err
	}
	return n, err
}

// TestPutCutShortWithPartsInFlightLeavesNothingBehind sends through a hop that passes each part
// on with its last KiB held back: the storage is still receiving the first two parts when the
// body ends, and a part it takes after the upload's abort would bring the upload back.
func TestPutCutShortWithPartsInFlightLeavesNothingBehind(t *testing.T) {
	direct, bucket := newS3(t)
	held := &heldParts{target: storetest.S3Config(t).Endpoint, hold: 200 * time.Millisecond, received: make(chan struct{}, 8)}
	hop := httptest.NewServer(held)
	defer hop.Close()
	cfg := storetest.S3Config(t)
	cfg.Endpoint = hop.URL
	s, err := store.NewS3(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The body ends after its first two parts (5 MiB each) have reached the hop whole.
	twoParts := func() {
		<-held.received
		<-held.received
	}
	put := func(t *testing.T, ctx context.Context, key string, body io.Reader) {
		t.Helper()
		if _, _, err := s.Put(ctx, bucket, key, "", body); err == nil {
			t.Fatal("Put of a body cut short succeeded")
		}
		held.inFlight.Wait() // every part held has reached the storage
		if ups := storetest.PendingUploads(t, direct.Client(), bucket); len(ups) != 0 {
			t.Fatalf("multipart uploads left open: %v", ups)
		}
	}
	t.Run("the request goes away", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		gone := func() { twoParts(); cancel() }
		put(t, ctx, "put/gone", &endsAfter{r: bytes.NewReader(randomBytes(30<<20, 8)), limit: 12 << 20, before: gone, err: context.Canceled})
	})
	t.Run("the body fails", func(t *testing.T) {
		tooLarge := errs.E(errs.TooLarge, "the file is larger than allowed")
		put(t, context.Background(), "put/failed", &endsAfter{r: bytes.NewReader(randomBytes(30<<20, 9)), limit: 12 << 20, before: twoParts, err: tooLarge})
	})
}

// heldParts passes requests on to the storage at target. A part, once received whole, is told
// on received and passed on, but its last KiB only after hold: the storage is still receiving
// it then, whether or not its sender still waits for it. inFlight counts the requests not yet
// answered.
type heldParts struct {
	target   string
	hold     time.Duration
	received chan struct{}
	inFlight sync.WaitGroup
}

func (h *heldParts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.inFlight.Add(1)
	defer h.inFlight.Done()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the sender gave up before the request was whole: the storage never sees it
	}
	var sent io.Reader = bytes.NewReader(body)
	if r.URL.Query().Has("partNumber") {
		h.received <- struct{}{}
		last := max(len(body)-1024, 0)
		sent = io.MultiReader(bytes.NewReader(body[:last]), sleepReader(h.hold), bytes.NewReader(body[last:]))
	}
	out, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, h.target+r.URL.RequestURI(), sent)
	if err != nil {
		panic(err)
	}
	out.ContentLength = int64(len(body))
	out.Header = r.Header.Clone()
	out.Host = r.Host // the host the request was signed for
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// sleepReader is an empty reader that takes d to say so.
type sleepReader time.Duration

func (d sleepReader) Read([]byte) (int, error) {
	time.Sleep(time.Duration(d))
	return 0, io.EOF
}
