package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/pkg/httpx/jsonw"
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

// writeJobsParams are the jobs' rows as WriteJobs takes them: one array per column, and per
// row a mask of its NULL columns (bit k for the k-th nullable one in the order of the columns)
// and whether it is stored.
func writeJobsParams(jobs []*domain.Job, stored func(*domain.Job) bool) db.WriteJobsParams {
	n := len(jobs)
	p := db.WriteJobsParams{
		JobID: make([]uuid.UUID, 0, n), TenantID: make([]uuid.UUID, 0, n), State: make([]string, 0, n),
		StateRank: make([]int16, 0, n), Progress: make([]int32, 0, n), NodeIds: make([]string, 0, n),
		NodeIdsSrc: make([]int16, 0, n), CreatedAt: make([]time.Time, 0, n), UpdatedAt: make([]time.Time, 0, n),
		Nulls: make([]int64, 0, n), Stored: make([]bool, 0, n),
	}
	for _, j := range jobs {
		var (
			exportID                                            *uuid.UUID
			outputURL, thumbnail, failedAt, errMessage, errCode *string
			outputDuration                                      *float64
			outputSize                                          *int64
			width, height, compute, retries                     *int
		)
		if o := j.Output; o != nil {
			exportID, outputURL, outputDuration, outputSize = &o.ExportID, &o.OutputURL, &o.DurationSec, &o.SizeBytes
			thumbnail, width, height, compute = o.ThumbnailURL, o.Width, o.Height, o.RenderComputeSeconds
		}
		if e := j.Error; e != nil {
			failedAt, errMessage, errCode, retries = &e.FailedAtStep, &e.ErrorMessage, e.ErrorCode, e.RetryCount
		}
		p.JobID, p.TenantID, p.Stored = append(p.JobID, j.ID), append(p.TenantID, j.TenantID), append(p.Stored, stored(j))
		p.State, p.StateRank = append(p.State, string(j.State)), append(p.StateRank, int16(j.State.Rank()))
		p.Progress = append(p.Progress, int32(j.Progress))
		p.NodeIds, p.NodeIdsSrc = append(p.NodeIds, uuidArrayLiteral(j.NodeIDs)), append(p.NodeIdsSrc, int16(j.NodeIDsSource))
		p.CreatedAt, p.UpdatedAt = append(p.CreatedAt, j.CreatedAt), append(p.UpdatedAt, j.UpdatedAt)
		var m nullMask
		p.UserID = nullable(p.UserID, j.UserID, &m, n)
		p.Step = nullable(p.Step, j.Step, &m, n)
		p.SavedProjectID = nullable(p.SavedProjectID, j.SavedProjectID, &m, n)
		p.OriginalProjectID = nullable(p.OriginalProjectID, j.OriginalProjectID, &m, n)
		p.PriorityQueue = nullable(p.PriorityQueue, j.PriorityQueue, &m, n)
		p.PriorityScore = nullable(p.PriorityScore, i32(j.PriorityScore), &m, n)
		p.PriceType = nullable(p.PriceType, j.PriceType, &m, n)
		p.PaidPriceMinor = nullable(p.PaidPriceMinor, j.PaidPriceMinor, &m, n)
		p.PaymentID = nullable(p.PaymentID, j.PaymentID, &m, n)
		p.Region = nullable(p.Region, j.Region, &m, n)
		p.Resolution = nullable(p.Resolution, j.Resolution, &m, n)
		p.DurationSec = nullable(p.DurationSec, j.DurationSec, &m, n)
		p.CurrentFrame = nullable(p.CurrentFrame, i32(j.CurrentFrame), &m, n)
		p.TotalFrames = nullable(p.TotalFrames, i32(j.TotalFrames), &m, n)
		p.EtaSeconds = nullable(p.EtaSeconds, i32(j.EtaSeconds), &m, n)
		p.RefundRequired = nullable(p.RefundRequired, j.RefundRequired, &m, n)
		p.CancelledByUserID = nullable(p.CancelledByUserID, j.CancelledByUserID, &m, n)
		p.ExportID = nullable(p.ExportID, exportID, &m, n)
		p.OutputUrl = nullable(p.OutputUrl, outputURL, &m, n)
		p.OutputDurationSec = nullable(p.OutputDurationSec, outputDuration, &m, n)
		p.OutputSizeBytes = nullable(p.OutputSizeBytes, outputSize, &m, n)
		p.ThumbnailUrl = nullable(p.ThumbnailUrl, thumbnail, &m, n)
		p.Width = nullable(p.Width, i32(width), &m, n)
		p.Height = nullable(p.Height, i32(height), &m, n)
		p.RenderComputeSeconds = nullable(p.RenderComputeSeconds, i32(compute), &m, n)
		p.FailedAtStep = nullable(p.FailedAtStep, failedAt, &m, n)
		p.CancelledAtStep = nullable(p.CancelledAtStep, j.CancelledAtStep, &m, n)
		p.ErrorMessage = nullable(p.ErrorMessage, errMessage, &m, n)
		p.ErrorCode = nullable(p.ErrorCode, errCode, &m, n)
		p.RetryCount = nullable(p.RetryCount, i32(retries), &m, n)
		p.TerminalEventID = nullable(p.TerminalEventID, j.TerminalEventID, &m, n)
		p.ProgressAt = nullable(p.ProgressAt, j.ProgressAt, &m, n)
		p.QueuedAt = nullable(p.QueuedAt, j.QueuedAt, &m, n)
		p.StartedAt = nullable(p.StartedAt, j.StartedAt, &m, n)
		p.FinishedAt = nullable(p.FinishedAt, j.FinishedAt, &m, n)
		p.Nulls = append(p.Nulls, m.nulls)
	}
	return p
}

// nullMask collects which of a row's nullable columns are NULL, one bit each in the order
// they are added.
type nullMask struct {
	nulls int64
	next  uint
}

// nullable appends v's value to column (its zero if v is nil, marked NULL in m); n is the
// column's length once every row is added.
func nullable[T any](column []T, v *T, m *nullMask, n int) []T {
	if column == nil {
		column = make([]T, 0, n)
	}
	var value T
	if v == nil {
		m.nulls |= 1 << m.next
	} else {
		value = *v
	}
	m.next++
	return append(column, value)
}

// uuidArrayLiteral is ids as PostgreSQL reads a uuid[] from text (elements may be quoted).
func uuidArrayLiteral(ids []uuid.UUID) string {
	if len(ids) == 0 {
		return "{}"
	}
	b := make([]byte, 0, 2+len(ids)*39)
	b = append(b, '{')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendUUID(b, id)
	}
	return string(append(b, '}'))
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
