package mediatest_test

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
	mt "github.com/videotpl/platform/services/content/internal/mediatest"
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

func projectAep(t *testing.T, h *mt.Harness, id uuid.UUID) (url, sum string, size int64) {
	t.Helper()
	r, err := h.Client.GetProjectWithResponse(mt.Ctx(t), id, h.Admin)
	mt.Want(t, r, r.Body, err, 200)
	p := r.JSON200
	if p.AepFileUrl == nil || p.AepFileMd5 == nil || p.AepFileSizeBytes == nil {
		return "", "", 0
	}
	return *p.AepFileUrl, *p.AepFileMd5, *p.AepFileSizeBytes
}

func TestA20MBAepStreamsThroughTheSingleRequestUpload(t *testing.T) {
	h := mt.Start(t, mt.Options{})
	pid := h.Project("aep-put", false)
	data := randomBytes(20_000_000, 1)

	ct, body := mt.Multipart(mt.File("file", "Intro Template.aep", data))
	r, err := h.Client.UploadProjectAepWithBodyWithResponse(mt.Ctx(t), pid, ct, body, h.Admin)
	mt.Want(t, r, r.Body, err, 200)
	if r.JSON200.AepFileMd5 != md5hex(data) || r.JSON200.AepFileSizeBytes != int64(len(data)) {
		t.Fatalf("upload answered %s / %d, want %s / %d", r.JSON200.AepFileMd5, r.JSON200.AepFileSizeBytes, md5hex(data), len(data))
	}
	url, sum, size := projectAep(t, h, pid)
	if url != r.JSON200.AepFileUrl || sum != md5hex(data) || size != int64(len(data)) {
		t.Fatalf("project records %s %s %d", url, sum, size)
	}
	bucket := h.Media.Config().TemplatesBucket
	key := mt.ObjectKey(url, bucket)
	if !strings.HasPrefix(key, "projects/"+pid.String()+"/aep/") || !strings.HasSuffix(key, "/Intro_Template.aep") {
		t.Fatalf("object key %q", key)
	}
	if n, s, err := h.S3.Hash(mt.Ctx(t), bucket, key); err != nil || s != sum || n != size {
		t.Fatalf("the stored object is %d bytes, md5 %s (%v)", n, s, err)
	}

	// A second upload replaces the file and removes the first object.
	small := randomBytes(3000, 2)
	ct, body = mt.Multipart(mt.Field("note", "ignored"), mt.File("file", "v2.aep", small))
	r2, err := h.Client.UploadProjectAepWithBodyWithResponse(mt.Ctx(t), pid, ct, body, h.Admin)
	mt.Want(t, r2, r2.Body, err, 200)
	if _, sum, size := projectAep(t, h, pid); sum != md5hex(small) || size != 3000 {
		t.Fatalf("after the replacement the project records %s %d", sum, size)
	}
	if _, err := h.S3.Client().HeadObject(mt.Ctx(t), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err == nil {
		t.Fatal("the replaced file is still stored")
	}
}

func TestTheSingleRequestUploadRefuses(t *testing.T) {
	const limit = 1 << 20
	h := mt.Start(t, mt.Options{Media: app.MediaConfig{AepMaxSingleUpload: limit}})
	pid := h.Project("aep-refusals", false)
	bucket := h.Media.Config().TemplatesBucket

	t.Run("a file above the bound, streamed, with 413 pointing to the multipart upload", func(t *testing.T) {
		ct, body := mt.Multipart(mt.File("file", "big.aep", randomBytes(limit+100_000, 3)))
		r, err := h.Client.UploadProjectAepWithBodyWithResponse(mt.Ctx(t), pid, ct, body, h.Admin)
		mt.Want(t, r, r.Body, err, 413)
		if d := mt.ProblemDetail(r.ApplicationproblemJSON413); !strings.Contains(d, "/aep/start-upload") || !strings.Contains(d, "complete-upload") {
			t.Errorf("the 413 does not point to the multipart upload: %q", d)
		}
		if ups := mt.PendingUploads(t, h.S3.Client(), bucket); len(ups) != 0 {
			t.Errorf("multipart uploads left open: %v", ups)
		}
		out, err := h.S3.Client().ListObjectsV2(mt.Ctx(t), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		if err != nil || len(out.Contents) != 0 {
			t.Errorf("objects left behind: %d (%v)", len(out.Contents), err)
		}
	})
	t.Run("a body that declares more than the bound, at once", func(t *testing.T) {
		ct, body := mt.MultipartBytes(t, mt.File("file", "big.aep", randomBytes(limit+(2<<20), 4)))
		r, err := h.Client.UploadProjectAepWithBodyWithResponse(mt.Ctx(t), pid, ct, body, h.Admin)
		mt.Want(t, r, r.Body, err, 413)
	})
	cases := []struct {
		name    string
		project uuid.UUID
		caller  content.RequestEditorFn
		parts   []mt.Part
		status  int
	}{
		{"a caller without the admin role", pid, h.User, []mt.Part{mt.File("file", "a.aep", []byte("x"))}, 403},
		{"an unknown project", uuid.New(), h.Admin, []mt.Part{mt.File("file", "a.aep", []byte("x"))}, 404},
		{"a body without the file part", pid, h.Admin, []mt.Part{mt.Field("name", "x")}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := mt.Multipart(tc.parts...)
			r, err := h.Client.UploadProjectAepWithBodyWithResponse(mt.Ctx(t), tc.project, ct, body, tc.caller)
			mt.Want(t, r, r.Body, err, tc.status)
		})
	}
	t.Run("a body that is not multipart", func(t *testing.T) {
		r, err := h.Client.UploadProjectAepWithBodyWithResponse(mt.Ctx(t), pid, "application/octet-stream", bytes.NewReader([]byte("x")), h.Admin)
		mt.Want(t, r, r.Body, err, 415)
	})
	if url, _, _ := projectAep(t, h, pid); url != "" {
		t.Fatalf("a refused upload was recorded: %s", url)
	}
}

func putPart(t *testing.T, url string, data []byte) string {
	t.Helper()
	req, err := http.NewRequestWithContext(mt.Ctx(t), http.MethodPut, url, bytes.NewReader(data))
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
	h := mt.Start(t, mt.Options{Media: app.MediaConfig{AepChunkSize: chunk}})
	pid := h.Project("aep-multipart", false)
	data := randomBytes(2*chunk+777_777, 5)

	s, err := h.Client.StartProjectAepUploadWithResponse(mt.Ctx(t), pid,
		content.AepStartUploadRequest{Filename: "Big Project.aep", TotalSizeBytes: int64(len(data))}, h.Admin)
	mt.Want(t, s, s.Body, err, 201)
	up := s.JSON201
	if up.ChunkSizeBytes != chunk || len(up.PartUrls) != 3 || up.Bucket != h.Media.Config().TemplatesBucket || up.UploadId == "" {
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
		r, err := h.Client.CompleteProjectAepUploadWithResponse(mt.Ctx(t), pid, content.AepCompleteUploadRequest{UploadId: up.UploadId, Parts: ps}, h.Admin)
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
		if r.StatusCode() != 400 || !slices.Contains(mt.ProblemFields(r.ApplicationproblemJSON400), "body.parts") {
			t.Fatalf("complete with %s: %d %s", name, r.StatusCode(), r.Body)
		}
	}
	if url, _, _ := projectAep(t, h, pid); url != "" {
		t.Fatal("a refused completion registered a file")
	}

	r := complete(parts)
	mt.Want(t, r, r.Body, nil, 200)
	if r.JSON200.AepFileMd5 != md5hex(data) || r.JSON200.AepFileSizeBytes != int64(len(data)) {
		t.Fatalf("complete answered %s / %d, want %s / %d", r.JSON200.AepFileMd5, r.JSON200.AepFileSizeBytes, md5hex(data), len(data))
	}
	url, sum, size := projectAep(t, h, pid)
	if sum != md5hex(data) || size != int64(len(data)) || mt.ObjectKey(url, up.Bucket) != up.Key {
		t.Fatalf("project records %s %s %d", url, sum, size)
	}
	if again := complete(parts); again.StatusCode() != 400 {
		t.Fatalf("completing a finished upload again: %d %s", again.StatusCode(), again.Body)
	}
}

func TestStartUploadRefusesBadSizesAndCallers(t *testing.T) {
	h := mt.Start(t, mt.Options{})
	pid := h.Project("aep-start-refusals", false)
	cases := []struct {
		name    string
		project uuid.UUID
		body    content.AepStartUploadRequest
		caller  content.RequestEditorFn
		status  int
	}{
		{"an empty file", pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 0}, h.Admin, 400},
		{"a file above 50 GiB", pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 50<<30 + 1}, h.Admin, 400},
		{"no file name", pid, content.AepStartUploadRequest{TotalSizeBytes: 100}, h.Admin, 400},
		{"a caller without the admin role", pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 100}, h.User, 403},
		{"an unknown project", uuid.New(), content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 100}, h.Admin, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := h.Client.StartProjectAepUploadWithResponse(mt.Ctx(t), tc.project, tc.body, tc.caller)
			mt.Want(t, r, r.Body, err, tc.status)
		})
	}
	t.Run("a 3 GB file gets 64 MiB parts", func(t *testing.T) {
		r, err := h.Client.StartProjectAepUploadWithResponse(mt.Ctx(t), pid, content.AepStartUploadRequest{Filename: "huge.aep", TotalSizeBytes: 3_000_000_000}, h.Admin)
		mt.Want(t, r, r.Body, err, 201)
		if r.JSON201.ChunkSizeBytes != 64<<20 || len(r.JSON201.PartUrls) != 45 {
			t.Fatalf("chunk %d, %d parts", r.JSON201.ChunkSizeBytes, len(r.JSON201.PartUrls))
		}
	})
	t.Run("an unknown upload id cannot be completed", func(t *testing.T) {
		r, err := h.Client.CompleteProjectAepUploadWithResponse(mt.Ctx(t), pid, content.AepCompleteUploadRequest{UploadId: "nope",
			Parts: []content.AepCompletedPart{{PartNumber: 1, Etag: `"x"`}}}, h.Admin)
		mt.Want(t, r, r.Body, err, 400)
		if !slices.Contains(mt.ProblemFields(r.ApplicationproblemJSON400), "body.upload_id") {
			t.Fatalf("problem %s", r.Body)
		}
	})
}

func TestTheSweeperAbortsUploadsNeverCompleted(t *testing.T) {
	sweep := func(t *testing.T, maxAge time.Duration) (*mt.Harness, uuid.UUID, string, int) {
		h := mt.Start(t, mt.Options{Media: app.MediaConfig{AepUploadMaxAge: maxAge}, NoBus: true})
		pid := h.Project("aep-sweep", false)
		s, err := h.Client.StartProjectAepUploadWithResponse(mt.Ctx(t), pid, content.AepStartUploadRequest{Filename: "a.aep", TotalSizeBytes: 10 << 20}, h.Admin)
		mt.Want(t, s, s.Body, err, 201)
		n, err := h.Media.SweepAepUploads(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return h, pid, s.JSON201.UploadId, n
	}
	t.Run("an upload older than the age is aborted and forgotten", func(t *testing.T) {
		h, pid, id, n := sweep(t, time.Nanosecond)
		if n != 1 {
			t.Fatalf("swept %d uploads", n)
		}
		if ups := mt.PendingUploads(t, h.S3.Client(), h.Media.Config().TemplatesBucket); len(ups) != 0 {
			t.Fatalf("uploads still open in S3: %v", ups)
		}
		r, err := h.Client.CompleteProjectAepUploadWithResponse(mt.Ctx(t), pid, content.AepCompleteUploadRequest{UploadId: id,
			Parts: []content.AepCompletedPart{{PartNumber: 1, Etag: `"x"`}, {PartNumber: 2, Etag: `"y"`}}}, h.Admin)
		mt.Want(t, r, r.Body, err, 400)
	})
	t.Run("a recent upload is left alone", func(t *testing.T) {
		h, _, id, n := sweep(t, time.Hour)
		if n != 0 {
			t.Fatalf("swept %d uploads", n)
		}
		if ups := mt.PendingUploads(t, h.S3.Client(), h.Media.Config().TemplatesBucket); !slices.Contains(mapValues(ups), id) {
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
