package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func jobFromRow(r db.RenderJob) *domain.Job {
	j := &domain.Job{
		ID: r.JobID, TenantID: r.TenantID, UserID: r.UserID, State: domain.JobState(r.State), Step: r.Step,
		Progress: int(r.Progress), SavedProjectID: r.SavedProjectID, OriginalProjectID: r.OriginalProjectID,
		PriorityQueue: r.PriorityQueue, PriorityScore: intp(r.PriorityScore), PriceType: r.PriceType,
		PaidPriceMinor: r.PaidPriceMinor, PaymentID: r.PaymentID, Region: r.Region, Resolution: r.Resolution,
		DurationSec: r.DurationSec, NodeIDs: r.NodeIds, NodeIDsSource: int(r.NodeIdsSrc),
		CurrentFrame: intp(r.CurrentFrame), TotalFrames: intp(r.TotalFrames), EtaSeconds: intp(r.EtaSeconds),
		RefundRequired: r.RefundRequired, CancelledByUserID: r.CancelledByUserID, CancelledAtStep: r.CancelledAtStep,
		TerminalEventID: r.TerminalEventID, ProgressAt: utc(r.ProgressAt), CreatedAt: r.CreatedAt.UTC(),
		QueuedAt: utc(r.QueuedAt), StartedAt: utc(r.StartedAt), FinishedAt: utc(r.FinishedAt), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if j.NodeIDs == nil {
		j.NodeIDs = []uuid.UUID{}
	}
	if r.ExportID != nil {
		j.Output = &domain.JobOutput{ExportID: *r.ExportID, OutputURL: deref(r.OutputUrl), DurationSec: derefF(r.OutputDurationSec),
			SizeBytes: derefI64(r.OutputSizeBytes), ThumbnailURL: r.ThumbnailUrl, Width: intp(r.Width), Height: intp(r.Height),
			RenderComputeSeconds: intp(r.RenderComputeSeconds)}
	}
	if r.FailedAtStep != nil {
		j.Error = &domain.JobError{FailedAtStep: *r.FailedAtStep, ErrorMessage: deref(r.ErrorMessage), ErrorCode: r.ErrorCode,
			RetryCount: intp(r.RetryCount)}
	}
	return j
}

func saveJobParams(j *domain.Job) db.SaveJobParams {
	nodes := j.NodeIDs
	if nodes == nil {
		nodes = []uuid.UUID{}
	}
	p := db.SaveJobParams{
		JobID: j.ID, TenantID: j.TenantID, UserID: j.UserID, State: string(j.State), StateRank: int16(j.State.Rank()),
		Step: j.Step, Progress: int32(j.Progress), SavedProjectID: j.SavedProjectID, OriginalProjectID: j.OriginalProjectID,
		PriorityQueue: j.PriorityQueue, PriorityScore: i32(j.PriorityScore), PriceType: j.PriceType,
		PaidPriceMinor: j.PaidPriceMinor, PaymentID: j.PaymentID, Region: j.Region, Resolution: j.Resolution,
		DurationSec: j.DurationSec, NodeIds: nodes, NodeIdsSrc: int16(j.NodeIDsSource),
		CurrentFrame: i32(j.CurrentFrame), TotalFrames: i32(j.TotalFrames), EtaSeconds: i32(j.EtaSeconds),
		RefundRequired: j.RefundRequired, CancelledByUserID: j.CancelledByUserID, CancelledAtStep: j.CancelledAtStep,
		TerminalEventID: j.TerminalEventID, ProgressAt: j.ProgressAt, CreatedAt: j.CreatedAt, QueuedAt: j.QueuedAt,
		StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, UpdatedAt: j.UpdatedAt,
	}
	if o := j.Output; o != nil {
		p.ExportID, p.OutputUrl, p.OutputDurationSec, p.OutputSizeBytes = &o.ExportID, &o.OutputURL, &o.DurationSec, &o.SizeBytes
		p.ThumbnailUrl, p.Width, p.Height, p.RenderComputeSeconds = o.ThumbnailURL, i32(o.Width), i32(o.Height), i32(o.RenderComputeSeconds)
	}
	if e := j.Error; e != nil {
		p.FailedAtStep, p.ErrorMessage, p.ErrorCode, p.RetryCount = &e.FailedAtStep, &e.ErrorMessage, e.ErrorCode, i32(e.RetryCount)
	}
	return p
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefF(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func derefI64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// GetJob implements domain.ReadStore.
func (s *Store) GetJob(ctx context.Context, id uuid.UUID) (*domain.Job, error) {
	r, err := s.q.GetJob(ctx, id)
	if err != nil {
		return nil, translate(err, "render job")
	}
	return jobFromRow(r), nil
}

// ListJobs implements domain.ReadStore.
func (s *Store) ListJobs(ctx context.Context, f domain.JobFilter, p domain.Page) ([]*domain.Job, error) {
	at, _, id := after(p)
	rows, err := s.q.ListJobs(ctx, db.ListJobsParams{TenantID: f.TenantID, UserID: f.UserID, State: f.State,
		SavedProjectID: f.SavedProjectID, FromTime: f.From, ToTime: f.To, AfterTime: at, AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	out := make([]*domain.Job, len(rows))
	for i, r := range rows {
		out[i] = jobFromRow(r)
	}
	return out, nil
}

// Timeline implements domain.ReadStore.
func (s *Store) Timeline(ctx context.Context, jobID uuid.UUID) ([]domain.TimelineEntry, error) {
	rows, err := s.q.ListTimeline(ctx, jobID)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	out := make([]domain.TimelineEntry, len(rows))
	for i, r := range rows {
		out[i] = domain.TimelineEntry{JobID: r.JobID, EventID: r.EventID, EventType: r.EventType, EventTime: r.EventTime.UTC(),
			ReceivedAt: r.ReceivedAt.UTC(), Applied: r.Applied, Data: r.Data}
	}
	return out, nil
}
