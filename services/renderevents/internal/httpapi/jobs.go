package httpapi

import (
	"context"
	"encoding/json"

	api "github.com/videotpl/platform/gen/renderevents"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func jobToAPI(j *domain.Job) api.RenderJob {
	out := api.RenderJob{
		JobId: j.ID, TenantId: j.TenantID, UserId: j.UserID, State: api.JobState(j.State), Progress: j.Progress,
		SavedProjectId: j.SavedProjectID, OriginalProjectId: j.OriginalProjectID, PriorityScore: j.PriorityScore,
		PriceType: j.PriceType, PaidPriceMinor: j.PaidPriceMinor, PaymentId: j.PaymentID, Region: j.Region,
		Resolution: j.Resolution, NodeIds: j.NodeIDs, CurrentFrame: j.CurrentFrame, TotalFrames: j.TotalFrames,
		EtaSeconds: j.EtaSeconds, RefundRequired: j.RefundRequired, CancelledByUserId: j.CancelledByUserID,
		CreatedAt: j.CreatedAt, QueuedAt: j.QueuedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, UpdatedAt: j.UpdatedAt,
	}
	if out.NodeIds == nil {
		out.NodeIds = []api.JobId{}
	}
	if j.Step != nil {
		s := api.Step(*j.Step)
		out.Step = &s
	}
	if j.PriorityQueue != nil {
		q := api.PriorityQueue(*j.PriorityQueue)
		out.PriorityQueue = &q
	}
	out.DurationSec = j.DurationSec
	if o := j.Output; o != nil {
		out.Output = &api.RenderOutput{ExportId: o.ExportID, OutputUrl: o.OutputURL, DurationSec: o.DurationSec,
			SizeBytes: o.SizeBytes, ThumbnailUrl: o.ThumbnailURL, Width: o.Width, Height: o.Height,
			RenderComputeSeconds: o.RenderComputeSeconds}
	}
	if e := j.Error; e != nil {
		out.Error = &api.RenderError{FailedAtStep: api.Step(e.FailedAtStep), ErrorMessage: e.ErrorMessage,
			ErrorCode: e.ErrorCode, RetryCount: e.RetryCount}
	}
	return out
}

// ListRenderJobs implements rendereventsserver.StrictServerInterface.
func (h *Handler) ListRenderJobs(ctx context.Context, req rendereventsserver.ListRenderJobsRequestObject) (rendereventsserver.ListRenderJobsResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	f := domain.JobFilter{UserID: p.UserId, SavedProjectID: p.SavedProjectId, From: p.From, To: p.To}
	if p.State != nil {
		s := string(*p.State)
		f.State = &s
	}
	jobs, next, err := h.queries.ListJobs(ctx, actor, listParams(p.TenantId, p.Cursor, p.Limit), f)
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.ListRenderJobs200JSONResponse{Data: make([]api.RenderJob, len(jobs)), NextCursor: next}
	for i, j := range jobs {
		out.Data[i] = jobToAPI(j)
	}
	return out, nil
}

// GetRenderJob implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetRenderJob(ctx context.Context, req rendereventsserver.GetRenderJobRequestObject) (rendereventsserver.GetRenderJobResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	j, err := h.queries.GetJob(ctx, actor, req.JobId)
	if err != nil {
		return nil, err
	}
	return rendereventsserver.GetRenderJob200JSONResponse(jobToAPI(j)), nil
}

// GetRenderJobTimeline implements rendereventsserver.StrictServerInterface.
func (h *Handler) GetRenderJobTimeline(ctx context.Context, req rendereventsserver.GetRenderJobTimelineRequestObject) (rendereventsserver.GetRenderJobTimelineResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := h.queries.Timeline(ctx, actor, req.JobId)
	if err != nil {
		return nil, err
	}
	out := rendereventsserver.GetRenderJobTimeline200JSONResponse{Data: make([]api.TimelineEntry, len(entries))}
	for i, e := range entries {
		data := map[string]any{}
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return nil, err
		}
		out.Data[i] = api.TimelineEntry{EventId: e.EventID, EventType: e.EventType, EventTime: e.EventTime,
			ReceivedAt: e.ReceivedAt, Applied: e.Applied, Data: data}
	}
	return out, nil
}
