package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// SetProjectAepFile records the project's AEP file and returns the key it replaced.
func (s *Store) SetProjectAepFile(ctx context.Context, projectID uuid.UUID, f domain.AepFile, at time.Time) (string, error) {
	prev, err := s.q.SetProjectAepFile(ctx, contentdb.SetProjectAepFileParams{
		ID: projectID, Url: &f.URL, Md5: &f.MD5, SizeBytes: &f.Size, Key: &f.Key, UpdatedAt: at,
	})
	return prev, translate(err, domain.ErrProjectNotFound)
}

func aepUploadFrom(r contentdb.AepUpload) domain.AepUpload {
	return domain.AepUpload{ID: r.ID, ProjectID: r.ProjectID, UploadID: r.UploadID, Bucket: r.Bucket,
		Key: r.Key, Filename: r.Filename, TotalSize: r.TotalSizeBytes, ChunkSize: r.ChunkSizeBytes,
		PartCount: int(r.PartCount), CreatedAt: r.CreatedAt}
}

// InsertAepUpload records a started multipart upload.
func (s *Store) InsertAepUpload(ctx context.Context, u domain.AepUpload) error {
	return s.q.InsertAepUpload(ctx, contentdb.InsertAepUploadParams{
		ID: u.ID, ProjectID: u.ProjectID, UploadID: u.UploadID, Bucket: u.Bucket, Key: u.Key,
		Filename: u.Filename, TotalSizeBytes: u.TotalSize, ChunkSizeBytes: u.ChunkSize,
		PartCount: i32(u.PartCount), CreatedAt: u.CreatedAt,
	})
}

// ErrUnknownUpload answers a completion naming no pending upload of the project.
var ErrUnknownUpload = invalid("body.upload_id", "is not an open upload of this project (unknown, completed or aborted)")

// GetAepUpload finds a pending upload of a project.
func (s *Store) GetAepUpload(ctx context.Context, projectID uuid.UUID, uploadID string) (domain.AepUpload, error) {
	r, err := s.q.GetAepUpload(ctx, contentdb.GetAepUploadParams{UploadID: uploadID, ProjectID: projectID})
	if err != nil {
		return domain.AepUpload{}, translate(err, ErrUnknownUpload)
	}
	return aepUploadFrom(r), nil
}

// DeleteAepUpload forgets a completed or aborted upload.
func (s *Store) DeleteAepUpload(ctx context.Context, id uuid.UUID) error {
	return s.q.DeleteAepUpload(ctx, id)
}

// ListStaleAepUploads lists uploads started before the given time.
func (s *Store) ListStaleAepUploads(ctx context.Context, before time.Time, limit int) ([]domain.AepUpload, error) {
	rows, err := s.q.ListStaleAepUploads(ctx, contentdb.ListStaleAepUploadsParams{CreatedAt: before, Limit: i32(limit)})
	if err != nil {
		return nil, err
	}
	out := make([]domain.AepUpload, len(rows))
	for i, r := range rows {
		out[i] = aepUploadFrom(r)
	}
	return out, nil
}
