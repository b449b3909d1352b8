package domain

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
)

// JobState is the life-cycle state of a render job. It only moves forward:
// queued < started < completed | failed | cancelled.
type JobState string

// The job states; StateNone is a job no life-cycle event has been applied to yet.
const (
	StateNone      JobState = ""
	StateQueued    JobState = "queued"
	StateStarted   JobState = "started"
	StateCompleted JobState = "completed"
	StateFailed    JobState = "failed"
	StateCancelled JobState = "cancelled"
)

// The steps a job is known to be at: Queued when queued, Done when completed.
const (
	StepQueued = "Queued"
	StepDone   = "Done"
)

// IsStep reports whether s is a value of the step enumeration of the event catalogue
// (cancelled_at_step is free text).
func IsStep(s string) bool {
	switch s {
	case "Queued", "Preparing", "TemplateCache", "JsxGen", "Music", "Rendering", "Validating", "Repairing",
		"Optimisation", "Video", "Mixing", "Final", "Uploading", "Done", "Failed", "Cancelled":
		return true
	}
	return false
}

// Rank orders the states: 0 none, 1 queued, 2 started, 3 terminal.
func (s JobState) Rank() int {
	switch s {
	case StateQueued:
		return 1
	case StateStarted:
		return 2
	case StateCompleted, StateFailed, StateCancelled:
		return 3
	}
	return 0
}

// Terminal reports whether s is final.
func (s JobState) Terminal() bool { return s.Rank() == 3 }

// Sources of node_ids: a terminal event's list wins over the started one's.
const (
	nodesUnknown  = 0
	nodesStarted  = 1
	nodesTerminal = 2
)

// Job is the read model of a render job as its events describe it.
type Job struct {
	ID                uuid.UUID
	TenantID          uuid.UUID
	UserID            *uuid.UUID
	State             JobState
	Step              *string
	Progress          int
	SavedProjectID    *uuid.UUID
	OriginalProjectID *uuid.UUID
	PriorityQueue     *string
	PriorityScore     *int
	PriceType         *string
	PaidPriceMinor    *int64
	PaymentID         *uuid.UUID
	Region            *string
	Resolution        *string
	DurationSec       *float64
	NodeIDs           []uuid.UUID
	NodeIDsSource     int
	CurrentFrame      *int
	TotalFrames       *int
	EtaSeconds        *int
	RefundRequired    *bool
	CancelledByUserID *uuid.UUID
	CancelledAtStep   *string
	Output            *JobOutput
	Error             *JobError
	TerminalEventID   *uuid.UUID
	ProgressAt        *time.Time
	CreatedAt         time.Time
	QueuedAt          *time.Time
	StartedAt         *time.Time
	FinishedAt        *time.Time
	UpdatedAt         time.Time
}

// JobOutput is the export of a completed job.
type JobOutput struct {
	ExportID             uuid.UUID
	OutputURL            string
	DurationSec          float64
	SizeBytes            int64
	ThumbnailURL         *string
	Width                *int
	Height               *int
	RenderComputeSeconds *int
}

// JobError says why a job failed.
type JobError struct {
	FailedAtStep string
	ErrorMessage string
	ErrorCode    *string
	RetryCount   *int
}

// ErrTenantMismatch marks a job event whose tenant differs from the job's: a poison
// message that no retry fixes.
var ErrTenantMismatch = errors.New("the event's tenant_id differs from the job's tenant")

// Outcome says what applying one event did to a job.
type Outcome struct {
	// Applied is true when the event advanced the job's state (it is then shown as applied
	// in the timeline). A late event (its state is not above the job's) is not applied; it
	// only fills facts still unknown, so the read model converges whatever the order.
	Applied bool
	// Terminal is true when this event made the job terminal (first terminal wins).
	Terminal bool
}

// NewJob returns the empty read model of a job first seen in an event of tenant at t.
func NewJob(id, tenant uuid.UUID, t time.Time) *Job {
	return &Job{ID: id, TenantID: tenant, State: StateNone, CreatedAt: t, UpdatedAt: t}
}

// Apply folds one life-cycle event into the job. The rules, chosen so that any order and
// any number of duplicates of the same events give the same job:
//
//   - state only moves forward; the first terminal event to arrive is final, a second
//     terminal (of any kind) changes nothing;
//   - render.job.queued.v1 owns what it carries (project, queue, price, region, resolution,
//     duration, payment): its values replace those filled in by other events;
//   - other events fill facts still unknown (user, payment = correlation_id, project, price),
//     whether or not they advance the state, so a late started still tells started_at;
//   - node_ids come from the terminal event when it lists nodes, else from started;
//   - step and progress follow the state: Queued on queued, Done/100 on completed,
//     failed_at_step on failed, cancelled_at_step (when a step value) on cancelled;
//   - created_at is the earliest and updated_at the latest event_time of the job.
func (j *Job) Apply(ev Event) (Outcome, error) {
	if j.State != StateNone && ev.TenantID != j.TenantID {
		return Outcome{}, ErrTenantMismatch
	}
	if j.State == StateNone {
		j.TenantID = ev.TenantID
	}
	if ev.Time.Before(j.CreatedAt) {
		j.CreatedAt = ev.Time
	}
	if ev.Time.After(j.UpdatedAt) {
		j.UpdatedAt = ev.Time
	}
	var out Outcome
	switch p := ev.Payload.(type) {
	case JobQueued:
		out.Applied = j.advance(StateQueued)
		j.applyQueued(ev, p)
	case JobStarted:
		out.Applied = j.advance(StateStarted)
		j.applyStarted(ev, p)
	case JobCompleted:
		if out.Applied = j.advance(StateCompleted); out.Applied {
			j.applyCompleted(ev, p)
		}
	case JobFailed:
		if out.Applied = j.advance(StateFailed); out.Applied {
			j.applyFailed(ev, p)
		}
	case JobCancelled:
		if out.Applied = j.advance(StateCancelled); out.Applied {
			j.applyCancelled(ev, p)
		}
	default:
		return Outcome{}, errors.New("not a render job life-cycle event: " + ev.Type)
	}
	if out.Applied && j.State.Terminal() {
		out.Terminal = true
		id := ev.ID
		j.TerminalEventID = &id
		t := ev.Time
		j.FinishedAt = &t
	}
	return out, nil
}

// advance moves the job to s if s is above its state.
func (j *Job) advance(s JobState) bool {
	if s.Rank() <= j.State.Rank() {
		return false
	}
	j.State = s
	return true
}

func (j *Job) fillEnvelope(ev Event) {
	fill(&j.UserID, ev.UserID)
	fill(&j.PaymentID, ev.CorrelationID)
}

func (j *Job) applyQueued(ev Event, p JobQueued) {
	override(&j.UserID, ev.UserID)
	override(&j.PaymentID, ev.CorrelationID)
	t := ev.Time
	j.QueuedAt = &t
	j.SavedProjectID = ptr(p.SavedProjectID)
	override(&j.OriginalProjectID, p.OriginalProjectID)
	j.PriorityQueue = ptr(p.PriorityQueue)
	override(&j.PriorityScore, p.PriorityScore)
	j.PriceType = ptr(p.PriceType)
	override(&j.PaidPriceMinor, p.PaidPriceMinor)
	j.Region = ptr(p.Region)
	override(&j.Resolution, p.Resolution)
	override(&j.DurationSec, p.DurationSec)
	fill(&j.Step, ptr(StepQueued))
}

func (j *Job) applyStarted(ev Event, p JobStarted) {
	j.fillEnvelope(ev)
	if t := p.StartedAt.UTC(); j.StartedAt == nil || t.Before(*j.StartedAt) {
		j.StartedAt = &t
	}
	fill(&j.Region, p.Region)
	fill(&j.TotalFrames, p.TotalFrames)
	j.setNodes(p.NodeIDs, nodesStarted)
}

func (j *Job) applyCompleted(ev Event, p JobCompleted) {
	j.fillEnvelope(ev)
	fill(&j.SavedProjectID, p.SavedProjectID)
	fill(&j.OriginalProjectID, p.OriginalProjectID)
	fill(&j.Resolution, p.Resolution)
	fill(&j.DurationSec, &p.DurationSec)
	fill(&j.PriceType, p.PriceType)
	fill(&j.PaidPriceMinor, p.PaidPriceMinor)
	j.setNodes(p.NodeIDsUsed, nodesTerminal)
	j.Step = ptr(StepDone)
	j.Progress = 100
	j.Output = &JobOutput{
		ExportID: p.ExportID, OutputURL: p.OutputURL, DurationSec: p.DurationSec, SizeBytes: p.SizeBytes,
		ThumbnailURL: p.ThumbnailURL, Width: p.Width, Height: p.Height, RenderComputeSeconds: p.RenderComputeSeconds,
	}
}

func (j *Job) applyFailed(ev Event, p JobFailed) {
	j.fillEnvelope(ev)
	fill(&j.SavedProjectID, p.SavedProjectID)
	fill(&j.PriceType, p.PriceType)
	fill(&j.PaidPriceMinor, p.PaidPriceMinor)
	j.setNodes(p.NodeIDsAttempted, nodesTerminal)
	j.Step = ptr(p.FailedAtStep)
	j.RefundRequired = ptr(p.RefundRequired)
	j.Error = &JobError{FailedAtStep: p.FailedAtStep, ErrorMessage: p.ErrorMessage, ErrorCode: p.ErrorCode, RetryCount: p.RetryCount}
}

func (j *Job) applyCancelled(ev Event, p JobCancelled) {
	j.fillEnvelope(ev)
	j.CancelledByUserID = ptr(p.CancelledByUserID)
	j.RefundRequired = ptr(p.RefundRequired)
	if p.CancelledAtStep != nil && IsStep(*p.CancelledAtStep) {
		j.CancelledAtStep = ptr(*p.CancelledAtStep)
		j.Step = ptr(*p.CancelledAtStep)
	}
	if p.ProgressWhenCancelled != nil {
		j.Progress = ClampProgress(*p.ProgressWhenCancelled)
	}
}

func (j *Job) setNodes(ids []uuid.UUID, source int) {
	if len(ids) == 0 || source < j.NodeIDsSource {
		return
	}
	j.NodeIDs = slices.Clone(ids)
	j.NodeIDsSource = source
}

func ptr[T any](v T) *T { return &v }

// fill sets *dst to src when dst is unknown and src is known.
func fill[T any](dst **T, src *T) {
	if *dst == nil && src != nil {
		v := *src
		*dst = &v
	}
}

// override sets *dst to src when src is known.
func override[T any](dst **T, src *T) {
	if src != nil {
		v := *src
		*dst = &v
	}
}

// JobQueued is render.job.queued.v1 as a job folds it.
type JobQueued struct {
	RenderJobID       uuid.UUID
	SavedProjectID    uuid.UUID
	OriginalProjectID *uuid.UUID
	PriorityQueue     string
	PriorityScore     *int
	PriceType         string
	PaidPriceMinor    *int64
	Region            string
	Resolution        *string
	DurationSec       *float64
}

// JobStarted is render.job.started.v1 as a job folds it.
type JobStarted struct {
	RenderJobID uuid.UUID
	StartedAt   time.Time
	NodeIDs     []uuid.UUID
	Region      *string
	TotalFrames *int
}

// JobCompleted is render.job.completed.v1 as a job folds it.
type JobCompleted struct {
	RenderJobID          uuid.UUID
	ExportID             uuid.UUID
	OutputURL            string
	DurationSec          float64
	SizeBytes            int64
	SavedProjectID       *uuid.UUID
	OriginalProjectID    *uuid.UUID
	ThumbnailURL         *string
	Resolution           *string
	Width                *int
	Height               *int
	RenderComputeSeconds *int
	NodeIDsUsed          []uuid.UUID
	PriceType            *string
	PaidPriceMinor       *int64
}

// JobFailed is render.job.failed.v1 as a job folds it.
type JobFailed struct {
	RenderJobID      uuid.UUID
	FailedAtStep     string
	ErrorMessage     string
	SavedProjectID   *uuid.UUID
	ErrorCode        *string
	RetryCount       *int
	RefundRequired   bool
	PriceType        *string
	PaidPriceMinor   *int64
	NodeIDsAttempted []uuid.UUID
}

// JobCancelled is render.job.cancelled.v1 as a job folds it.
type JobCancelled struct {
	RenderJobID           uuid.UUID
	CancelledByUserID     uuid.UUID
	CancelledAtStep       *string
	ProgressWhenCancelled *int
	RefundRequired        bool
}

// JobFilter selects render jobs.
type JobFilter struct {
	TenantID       *uuid.UUID `json:"tenant_id,omitempty"`
	UserID         *uuid.UUID `json:"user_id,omitempty"`
	State          *string    `json:"state,omitempty"`
	SavedProjectID *uuid.UUID `json:"saved_project_id,omitempty"`
	From           *time.Time `json:"from,omitempty"`
	To             *time.Time `json:"to,omitempty"`
}

// TimelineEntry is one life-cycle event in a job's timeline.
type TimelineEntry struct {
	JobID      uuid.UUID
	EventID    uuid.UUID
	EventType  string
	EventTime  time.Time
	ReceivedAt time.Time
	Applied    bool
	Data       []byte
}

// JobReadStore reads render jobs and their timelines. Lists return up to Page.Limit+1 rows
// after Page.After.
type JobReadStore interface {
	GetJob(ctx context.Context, id uuid.UUID) (*Job, error)
	ListJobs(ctx context.Context, f JobFilter, p Page) ([]*Job, error)
	Timeline(ctx context.Context, jobID uuid.UUID) ([]TimelineEntry, error)
}
