package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func snapshotFromRow(r db.Snapshot) domain.Snapshot {
	return domain.Snapshot{ID: r.SnapshotID, TenantID: r.TenantID, UserID: r.UserID, SavedProjectID: r.SavedProjectID,
		SceneKey: r.SceneKey, FrameNumber: intp(r.FrameNumber), Cached: r.Cached, ImageURL: r.ImageUrl,
		ThumbnailURL: r.ThumbnailUrl, Width: intp(r.Width), Height: intp(r.Height), SizeBytes: r.SizeBytes,
		DurationMS: intp(r.DurationMs), ExpiresAt: utc(r.ExpiresAt), RequestedAt: utc(r.RequestedAt),
		ReadyAt: utc(r.ReadyAt), CreatedAt: r.CreatedAt.UTC()}
}

// GetSnapshot implements domain.ReadStore.
func (s *Store) GetSnapshot(ctx context.Context, id uuid.UUID) (domain.Snapshot, error) {
	r, err := s.q.GetSnapshot(ctx, id)
	if err != nil {
		return domain.Snapshot{}, translate(err, "snapshot")
	}
	return snapshotFromRow(r), nil
}

// ListSnapshots implements domain.ReadStore.
func (s *Store) ListSnapshots(ctx context.Context, f domain.SnapshotFilter, now time.Time, p domain.Page) ([]domain.Snapshot, error) {
	at, _, id := after(p)
	rows, err := s.q.ListSnapshots(ctx, db.ListSnapshotsParams{TenantID: f.TenantID, SavedProjectID: f.SavedProjectID,
		State: f.State, Now: now, AfterTime: at, AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	out := make([]domain.Snapshot, len(rows))
	for i, r := range rows {
		out[i] = snapshotFromRow(r)
	}
	return out, nil
}
