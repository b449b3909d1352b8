package app

import (
	"context"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

const aepContentType = "application/octet-stream"

// AepTooLarge is the answer to a single-request upload above its bound, whatever stopped it
// (the file part, or the body around it): it points to the multipart upload.
func (a *App) AepTooLarge() error {
	return errs.Ef(errs.TooLarge, "the AEP file is larger than %d bytes (%d MiB), the bound of the single-request upload: "+
		"upload it with POST /projects/{project_id}/aep/start-upload and POST /projects/{project_id}/aep/complete-upload",
		a.cfg.AepMaxSingleUpload, a.cfg.AepMaxSingleUpload>>20)
}

// aepKey is where a project's AEP file goes; a fresh id per upload, so a replaced file stays
// readable until the project points at the new one.
func aepKey(projectID uuid.UUID, filename string) (string, error) {
	id, err := newID()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("projects/%s/aep/%s/%s", projectID, id, safeName(filename, "project.aep")), nil
}

// UploadAep streams an AEP file to object storage (MD5 and size computed on the way, the file
// never held in memory) and records it on the project, replacing the previous file.
func (a *App) UploadAep(ctx context.Context, actor domain.Actor, projectID uuid.UUID, filename string, body io.Reader) (domain.AepFile, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.AepFile{}, err
	}
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return domain.AepFile{}, err
	}
	key, err := aepKey(projectID, filename)
	if err != nil {
		return domain.AepFile{}, err
	}
	bucket := a.cfg.TemplatesBucket
	bounded := &boundedReader{r: body, limit: a.cfg.AepMaxSingleUpload, err: a.AepTooLarge()}
	size, sum, err := a.objects.Put(ctx, bucket, key, aepContentType, bounded)
	if err != nil {
		return domain.AepFile{}, err
	}
	f := domain.AepFile{URL: a.objects.URL(bucket, key), Key: key, MD5: sum, Size: size}
	if err := a.register(ctx, projectID, f, nil); err != nil {
		a.deleteQuietly(ctx, bucket, key)
		return domain.AepFile{}, err
	}
	return f, nil
}

// register records f on the project (and forgets the finished upload u, if any) in one
// transaction, then removes the file it replaced.
func (a *App) register(ctx context.Context, projectID uuid.UUID, f domain.AepFile, u *domain.AepUpload) error {
	var prev string
	err := a.store.InTx(ctx, func(tx domain.Store) error {
		var err error
		if prev, err = tx.SetProjectAepFile(ctx, projectID, f, a.now()); err != nil {
			return err
		}
		if u != nil {
			return tx.DeleteAepUpload(ctx, u.ID)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if prev != "" && prev != f.Key {
		a.deleteQuietly(ctx, a.cfg.TemplatesBucket, prev)
	}
	return nil
}

// PartURL is the presigned URL of one part.
type PartURL struct {
	Number int32
	URL    string
}

// StartedUpload is the answer to StartAepUpload.
type StartedUpload struct {
	UploadID  string
	Bucket    string
	Key       string
	ChunkSize int64
	Parts     []PartURL
}

// StartAepUpload starts an S3 multipart upload for a file of total bytes and presigns one
// PUT URL per part. The pending upload is recorded so that the sweeper aborts it when it is
// never completed.
func (a *App) StartAepUpload(ctx context.Context, actor domain.Actor, projectID uuid.UUID, filename string, total int64) (StartedUpload, error) {
	if err := actor.RequireAdmin(); err != nil {
		return StartedUpload{}, err
	}
	if total < 1 || total > domain.MaxAepSize {
		return StartedUpload{}, invalidField("body.total_size_bytes", fmt.Sprintf("must be from 1 to %d bytes", int64(domain.MaxAepSize)))
	}
	if filename == "" {
		return StartedUpload{}, invalidField("body.filename", "is required")
	}
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return StartedUpload{}, err
	}
	chunk := domain.ChunkSize(total, a.cfg.AepChunkSize)
	n := int((total + chunk - 1) / chunk)
	key, err := aepKey(projectID, filename)
	if err != nil {
		return StartedUpload{}, err
	}
	bucket := a.cfg.TemplatesBucket
	uploadID, err := a.objects.StartMultipart(ctx, bucket, key, aepContentType)
	if err != nil {
		return StartedUpload{}, err
	}
	out := StartedUpload{UploadID: uploadID, Bucket: bucket, Key: key, ChunkSize: chunk, Parts: make([]PartURL, n)}
	for i := range n {
		url, err := a.objects.PresignPart(ctx, bucket, key, uploadID, int32(i+1), a.cfg.PartURLTTL) //nolint:gosec // n <= 10,000
		if err != nil {
			_ = a.objects.AbortMultipart(context.WithoutCancel(ctx), bucket, key, uploadID)
			return StartedUpload{}, err
		}
		out.Parts[i] = PartURL{Number: int32(i + 1), URL: url} //nolint:gosec // n <= 10,000
	}
	id, err := newID()
	if err != nil {
		return StartedUpload{}, err
	}
	err = a.store.InsertAepUpload(ctx, domain.AepUpload{ID: id, ProjectID: projectID, UploadID: uploadID,
		Bucket: bucket, Key: key, Filename: filename, TotalSize: total, ChunkSize: chunk, PartCount: n, CreatedAt: a.now()})
	if err != nil {
		_ = a.objects.AbortMultipart(context.WithoutCancel(ctx), bucket, key, uploadID)
		return StartedUpload{}, err
	}
	return out, nil
}

// CompleteAepUpload completes a multipart upload with every part, hashes the stored object
// (streamed MD5) and registers it on the project. A missing, extra or unordered part, or one
// S3 refuses (wrong ETag, never uploaded), is 400 and the upload stays open for a retry.
func (a *App) CompleteAepUpload(ctx context.Context, actor domain.Actor, projectID uuid.UUID, uploadID string, parts []domain.CompletedPart) (domain.AepFile, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.AepFile{}, err
	}
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return domain.AepFile{}, err
	}
	u, err := a.store.GetAepUpload(ctx, projectID, uploadID)
	if err != nil {
		return domain.AepFile{}, err
	}
	if err := domain.CheckParts(parts, u.PartCount); err != nil {
		return domain.AepFile{}, err
	}
	if err := a.objects.CompleteMultipart(ctx, u.Bucket, u.Key, u.UploadID, parts); err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.Invalid && len(e.Fields) == 0 {
			return domain.AepFile{}, invalidField("body.parts", e.Detail)
		}
		return domain.AepFile{}, err
	}
	size, sum, err := a.objects.Hash(ctx, u.Bucket, u.Key)
	if err != nil {
		return domain.AepFile{}, err
	}
	f := domain.AepFile{URL: a.objects.URL(u.Bucket, u.Key), Key: u.Key, MD5: sum, Size: size}
	if err := a.register(ctx, projectID, f, &u); err != nil {
		return domain.AepFile{}, err
	}
	return f, nil
}

// SweepAepUploads aborts the uploads started more than AepUploadMaxAge ago and never
// completed, and forgets them. It returns how many it aborted.
func (a *App) SweepAepUploads(ctx context.Context) (int, error) {
	stale, err := a.store.ListStaleAepUploads(ctx, a.now().Add(-a.cfg.AepUploadMaxAge), 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, u := range stale {
		if err := a.objects.AbortMultipart(ctx, u.Bucket, u.Key, u.UploadID); err != nil {
			a.log.WarnContext(ctx, "could not abort a stale AEP upload", "upload_id", u.UploadID, "error", err.Error())
			continue
		}
		if err := a.store.DeleteAepUpload(ctx, u.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
