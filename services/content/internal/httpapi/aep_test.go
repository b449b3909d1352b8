package httpapi_test

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // the checksum under test
	"encoding/hex"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/store/storetest"
)

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
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

func projectAep(t *testing.T, ev *env, id uuid.UUID) (url, sum string, size int64) {
	t.Helper()
	r, err := ev.c.GetProjectWithResponse(ctx(t), id, ev.admin)
	want(t, r, err, 200)
	p := r.JSON200
	if p.AepFileUrl == nil || p.AepFileMd5 == nil || p.AepFileSizeBytes == nil {
		return "", "", 0
	}
	return *p.AepFileUrl, *p.AepFileMd5, *p.AepFileSizeBytes
}

func TestA20MBAepStreamsThroughTheSingleRequestUpload(t *testing.T) {
	ev := newEnv(t, withBus())
	pid := ev.draftProject("aep-put")
	data := randomBytes(20_000_000, 1)

	ct, body := streamedBody(filePart("file", "Intro Template.aep", data))
	r, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), pid, ct, body, ev.admin)
	want(t, r, err, 200)
	if r.JSON200.AepFileMd5 != md5hex(data) || r.JSON200.AepFileSizeBytes != int64(len(data)) {
		t.Fatalf("upload answered %s / %d, want %s / %d", r.JSON200.AepFileMd5, r.JSON200.AepFileSizeBytes, md5hex(data), len(data))
	}
	url, sum, size := projectAep(t, ev, pid)
	if url != r.JSON200.AepFileUrl || sum != md5hex(data) || size != int64(len(data)) {
		t.Fatalf("project records %s %s %d", url, sum, size)
	}
	bucket := ev.app.Config().TemplatesBucket
	key := objectKey(url, bucket)
	if !strings.HasPrefix(key, "projects/"+pid.String()+"/aep/") || !strings.HasSuffix(key, "/Intro_Template.aep") {
		t.Fatalf("object key %q", key)
	}
	if n, s, err := ev.s3.Hash(ctx(t), bucket, key); err != nil || s != sum || n != size {
		t.Fatalf("the stored object is %d bytes, md5 %s (%v)", n, s, err)
	}

	// A second upload replaces the file and removes the first object.
	small := randomBytes(3000, 2)
	ct, body = streamedBody(filePart("file", "v2.aep", small))
	r2, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), pid, ct, body, ev.admin)
	want(t, r2, err, 200)
	if _, sum, size := projectAep(t, ev, pid); sum != md5hex(small) || size != 3000 {
		t.Fatalf("after the replacement the project records %s %d", sum, size)
	}
	if _, err := ev.s3.Client().HeadObject(ctx(t), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err == nil {
		t.Fatal("the replaced file is still stored")
	}
}

func TestTheSingleRequestUploadRefuses(t *testing.T) {
	const limit = 1 << 20
	ev := newEnv(t, withBus(), withConfig(func(c *app.Config) { c.AepMaxSingleUpload = limit }))
	pid := ev.draftProject("aep-refusals")
	bucket := ev.app.Config().TemplatesBucket

	t.Run("a file above the bound, streamed, with 413 pointing to the multipart upload", func(t *testing.T) {
		ct, body := streamedBody(filePart("file", "big.aep", randomBytes(limit+100_000, 3)))
		r, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), pid, ct, body, ev.admin)
		want(t, r, err, 413)
		pointsToMultipart(t, r)
		if ups := storetest.PendingUploads(t, ev.s3.Client(), bucket); len(ups) != 0 {
			t.Errorf("multipart uploads left open: %v", ups)
		}
		out, err := ev.s3.Client().ListObjectsV2(ctx(t), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		if err != nil || len(out.Contents) != 0 {
			t.Errorf("objects left behind: %d (%v)", len(out.Contents), err)
		}
	})
	t.Run("a body that declares more than the bound, at once, with 413 pointing to the multipart upload", func(t *testing.T) {
		ct, body := bufferedBody(t, filePart("file", "big.aep", randomBytes(limit+(2<<20), 4)))
		r, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), pid, ct, body, ev.admin)
		want(t, r, err, 413)
		pointsToMultipart(t, r)
	})
	t.Run("a chunked body with a part the form does not name before its file, with 400 naming it unread", func(t *testing.T) {
		ct, body := streamedBody(fieldPart("padding", strings.Repeat("x", limit+(2<<20))), filePart("file", "a.aep", []byte("x")))
		r, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), pid, ct, body, ev.admin)
		want(t, r, err, 400)
		if !strings.Contains(string(r.Body), "body.padding") || !strings.Contains(string(r.Body), "is not a known property") {
			t.Errorf("the problem does not name the unknown part: %s", r.Body)
		}
	})
	cases := []struct {
		name    string
		project uuid.UUID
		caller  content.RequestEditorFn
		parts   []part
		status  int
	}{
		{"a caller without the admin role", pid, ev.user, []part{filePart("file", "a.aep", []byte("x"))}, 403},
		{"an unknown project", uuid.New(), ev.admin, []part{filePart("file", "a.aep", []byte("x"))}, 404},
		{"a body without the file part", pid, ev.admin, []part{fieldPart("name", "x")}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := streamedBody(tc.parts...)
			r, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), tc.project, ct, body, tc.caller)
			want(t, r, err, tc.status)
		})
	}
	t.Run("a body that is not multipart", func(t *testing.T) {
		r, err := ev.c.UploadProjectAepWithBodyWithResponse(ctx(t), pid, "application/octet-stream", bytes.NewReader([]byte("x")), ev.admin)
		want(t, r, err, 415)
	})
	if url, _, _ := projectAep(t, ev, pid); url != "" {
		t.Fatalf("a refused upload was recorded: %s", url)
	}
}

// pointsToMultipart fails the test unless a 413 of the single-request upload points to the
// multipart upload.
func pointsToMultipart(t *testing.T, r *content.UploadProjectAepResponse) {
	t.Helper()
	if d := problemDetail(r.ApplicationproblemJSON413); !strings.Contains(d, "/aep/start-upload") || !strings.Contains(d, "complete-upload") {
		t.Errorf("the 413 does not point to the multipart upload: %q", d)
	}
}

func putPart(t *testing.T, url string, data []byte) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPut, url, bytes.NewReader(data))
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

func TestAThreePartAepThroughStartAndCompleteSurvivesAWrongETag(t *testing.T) {
	const chunk = 5 << 20
	ev := newEnv(t, withBus(), withConfig(func(c *app.Config) { c.AepChunkSize = chunk }))
	pid := ev.draftProject("aep-multipart")
	data := randomBytes(2*chunk+777_777, 5)

	s, err := ev.c.StartProjectAepUploadWithResponse(ctx(t), pid,
		nil, content.AepStartUploadRequest{Filename: "Big Project.aep", TotalSizeBytes: int64(len(data))}, ev.admin)
	want(t, s, err, 201)
	up := s.JSON201
	if up.ChunkSizeBytes != chunk || len(up.PartUrls) != 3 || up.Bucket != ev.app.Config().TemplatesBucket || up.UploadId == "" {
		t.Fatalf("start-upload answered chunk %d, %d parts, bucket %s", up.ChunkSizeBytes, len(up.PartUrls), up.Bucket)
	}
	var parts []content.AepCompletedPart
	for i, pu := range up.PartUrls {
		if pu.PartNumber != i+1 {
			t.Fatalf("part %d has number %d", i, pu.PartNumber)
		}
		lo, hi := i*chunk, min(len(data), (i+1)*chunk)
		parts = append(parts, content.AepCompletedPart{PartNumber: pu.PartNumber, Etag: putPart(t, pu.Url, data[lo:hi])})
	}

	complete := func(ps []content.AepCompletedPart) *content.CompleteProjectAepUploadResponse {
		t.Helper()
		r, err := ev.c.CompleteProjectAepUploadWithResponse(ctx(t), pid, content.AepCompleteUploadRequest{UploadId: up.UploadId, Parts: ps}, ev.admin)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	wrong := slices.Clone(parts)
	wrong[1].Etag = `"00000000000000000000000000000000"`
	for name, ps := range map[string][]content.AepCompletedPart{
		"a wrong etag":       wrong,
		"a missing part":     {parts[0], parts[2]},
		"parts out of order": {parts[1], parts[0], parts[2]},
	} {
		r := complete(ps)
		if r.StatusCode() != 400 || !slices.Contains(problemFields(r.ApplicationproblemJSON400), "body.parts") {
			t.Fatalf("complete with %s: %d %s", name, r.StatusCode(), r.Body)
		}
	}
	if url, _, _ := projectAep(t, ev, pid); url != "" {
		t.Fatal("a refused completion registered a file")
	}

	r := complete(parts)
	want(t, r, nil, 200)
	if r.JSON200.AepFileMd5 != md5hex(data) || r.JSON200.AepFileSizeBytes != int64(len(data)) {
		t.Fatalf("complete answered %s / %d, want %s / %d", r.JSON200.AepFileMd5, r.JSON200.AepFileSizeBytes, md5hex(data), len(data))
	}
	url, sum, size := projectAep(t, ev, pid)
	if sum != md5hex(data) || size != int64(len(data)) || objectKey(url, up.Bucket) != up.Key {
		t.Fatalf("project records %s %s %d", url, sum, size)
	}
	if again := complete(parts); again.StatusCode() != 400 {
		t.Fatalf("completing a finished upload again: %d %s", again.StatusCode(), again.Body)
	}
}

func TestStartUploadRefusesBadSizesAndCallers(t *testing.T) {
	ev := newEnv(t, withBus())
	pid := ev.draftProject("aep-start-refusals")
	cases := []struct {
		name    string
		project uuid.UUID
		body    content.AepStartUploadRequest
		caller  content.RequestEditorFn
		status  int
	}{
		{"an empty file", pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 0}, ev.admin, 400},
		{"a file above 50 GiB", pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 50<<30 + 1}, ev.admin, 400},
		{"no file name", pid, content.AepStartUploadRequest{TotalSizeBytes: 100}, ev.admin, 400},
		{"a caller without the admin role", pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 100}, ev.user, 403},
		{"an unknown project", uuid.New(), content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 100}, ev.admin, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ev.c.StartProjectAepUploadWithResponse(ctx(t), tc.project, nil, tc.body, tc.caller)
			want(t, r, err, tc.status)
		})
	}
	t.Run("a 3 GB file gets 64 MiB parts", func(t *testing.T) {
		r, err := ev.c.StartProjectAepUploadWithResponse(ctx(t), pid, nil, content.AepStartUploadRequest{Filename: "huge.aep", TotalSizeBytes: 3_000_000_000}, ev.admin)
		want(t, r, err, 201)
		if r.JSON201.ChunkSizeBytes != 64<<20 || len(r.JSON201.PartUrls) != 45 {
			t.Fatalf("chunk %d, %d parts", r.JSON201.ChunkSizeBytes, len(r.JSON201.PartUrls))
		}
	})
	t.Run("an unknown upload id cannot be completed", func(t *testing.T) {
		r, err := ev.c.CompleteProjectAepUploadWithResponse(ctx(t), pid, content.AepCompleteUploadRequest{UploadId: "nope",
			Parts: []content.AepCompletedPart{{PartNumber: 1, Etag: `"x"`}}}, ev.admin)
		want(t, r, err, 400)
		if !slices.Contains(problemFields(r.ApplicationproblemJSON400), "body.upload_id") {
			t.Fatalf("problem %s", r.Body)
		}
	})
}

func TestTheSweeperAbortsUploadsNeverCompleted(t *testing.T) {
	sweep := func(t *testing.T, maxAge time.Duration) (*env, uuid.UUID, string, int) {
		ev := newEnv(t, withConfig(func(c *app.Config) { c.AepUploadMaxAge = maxAge }))
		pid := ev.draftProject("aep-sweep")
		s, err := ev.c.StartProjectAepUploadWithResponse(ctx(t), pid, nil, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 10 << 20}, ev.admin)
		want(t, s, err, 201)
		n, err := ev.app.SweepAepUploads(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ev, pid, s.JSON201.UploadId, n
	}
	t.Run("an upload older than the age is aborted and forgotten", func(t *testing.T) {
		ev, pid, id, n := sweep(t, time.Nanosecond)
		if n != 1 {
			t.Fatalf("swept %d uploads", n)
		}
		if ups := storetest.PendingUploads(t, ev.s3.Client(), ev.app.Config().TemplatesBucket); len(ups) != 0 {
			t.Fatalf("uploads still open in S3: %v", ups)
		}
		r, err := ev.c.CompleteProjectAepUploadWithResponse(ctx(t), pid, content.AepCompleteUploadRequest{UploadId: id,
			Parts: []content.AepCompletedPart{{PartNumber: 1, Etag: `"x"`}, {PartNumber: 2, Etag: `"y"`}}}, ev.admin)
		want(t, r, err, 400)
	})
	t.Run("a recent upload is left alone", func(t *testing.T) {
		ev, _, id, n := sweep(t, time.Hour)
		if n != 0 {
			t.Fatalf("swept %d uploads", n)
		}
		if ups := storetest.PendingUploads(t, ev.s3.Client(), ev.app.Config().TemplatesBucket); !slices.Contains(mapValues(ups), id) {
			t.Fatalf("the upload is gone: %v", ups)
		}
	})
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
