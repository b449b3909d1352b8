package httpapi

import (
	"context"
	"time"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func snapshotToAPI(s domain.Snapshot, now time.Time) api.Snapshot {
	out := api.Snapshot{SnapshotId: s.ID, TenantId: s.TenantID, UserId: s.UserID, State: api.SnapshotState(s.State(now)),
		SavedProjectId: s.SavedProjectID, SceneKey: s.SceneKey, FrameNumber: s.FrameNumber, Cached: s.Cached,
		ImageUrl: s.ImageURL, ThumbnailUrl: s.ThumbnailURL, Width: s.Width, Height: s.Height, DurationMs: s.DurationMS,
		ExpiresAt: s.ExpiresAt, RequestedAt: s.RequestedAt, ReadyAt: s.ReadyAt}
	if s.SizeBytes != nil {
		n := int(*s.SizeBytes)
		out.SizeBytes = &n
	}
	return out
}

// ListSnapshots implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListSnapshots(ctx context.Context, req rendereventsserver.ListSnapshotsRequestObject) (rendereventsserver.ListSnapshotsResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	f := domain.SnapshotFilter{SavedProjectID: p.SavedProjectId}
	if p.State != nil {
		s := string(*p.State)
		f.State = &s
	}
	rows, next, err := h.queries.ListSnapshots(ctx, actor, listParams(p.TenantId, p.Cursor, p.Limit), f)
	if err != nil {
		return nil, err
	}
	now := h.queries.Now()
	out := rendereventsserver.ListSnapshots200JSONResponse{Data: make([]api.Snapshot, len(rows)), NextCursor: next}
	for i, s := range rows {
		out.Data[i] = snapshotToAPI(s, now)
	}
	return out, nil
}

// GetSnapshot implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetSnapshot(ctx context.Context, req rendereventsserver.GetSnapshotRequestObject) (rendereventsserver.GetSnapshotResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.queries.GetSnapshot(ctx, actor, req.SnapshotId)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.GetSnapshot200JSONResponse(snapshotToAPI(s, h.queries.Now())), nil
}
