package domain

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// RunJob is the name (routing key) of the command that executes a run in the background. It
// travels like an event, through the outbox to the events exchange, and the service's own
// queue is bound to it; its data is RunJobData.
const RunJob = "orgboard.agent_run.execute.v1"

// RunJobData is the data of a RunJob command: the run and who asked for its execution (the
// actor of its audit entry).
type RunJobData struct {
	AgentRunID uuid.UUID `json:"agent_run_id"`
	ActorKind  ActorKind `json:"actor_kind"`
	UserID     uuid.UUID `json:"user_id,omitempty"`
	ActorName  string    `json:"actor_name,omitempty"`
	TenantID   uuid.UUID `json:"actor_tenant_id,omitempty"`
}

// NewRunJobData is the command that executes run for actor.
func NewRunJobData(run uuid.UUID, actor Actor) RunJobData {
	return RunJobData{AgentRunID: run, ActorKind: actor.Kind, UserID: actor.UserID, ActorName: actor.Name, TenantID: actor.TenantID}
}

// Actor is who asked for the execution (the actor of its audit entry and events).
func (d RunJobData) Actor() Actor {
	return Actor{Kind: d.ActorKind, UserID: d.UserID, Name: d.ActorName, TenantID: d.TenantID}
}

// MaxFailureReason bounds a run's failure reason, in characters (the event's bound).
const MaxFailureReason = 2000

// CutFailureReason cuts reason to MaxFailureReason characters.
func CutFailureReason(reason string) string {
	if utf8.RuneCountInString(reason) <= MaxFailureReason {
		return reason
	}
	return string([]rune(reason)[:MaxFailureReason-1]) + "…"
}

// RunJobPolicy bounds the model calls of a run's job.
type RunJobPolicy struct {
	// Attempts is the most model calls (each with the fallback) made for one run, 1 or more.
	Attempts int
	// Backoff is the pause before the second call; it doubles before each further one, up to
	// MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// Lease is how long a job's claim on a run holds without being renewed; the job renews it
	// every Lease/3 while it works, so a claim older than Lease belongs to a job that stopped.
	Lease time.Duration
}

// Delay is the pause after the attempt-th call failed (attempt 1 is the first call).
func (p RunJobPolicy) Delay(attempt int) time.Duration {
	d := p.Backoff
	for i := 1; i < attempt && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, max(p.MaxBackoff, p.Backoff))
}

// RetryableModelError reports whether a failed model call may succeed when made again: the
// server answered 5xx, 408 or 429, or did not answer (a time limit, a broken connection).
// A refusal (a bad key, a request the model server rejects) is final.
func RetryableModelError(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// RunJobStore keeps the claims of run jobs. A job claims an executing run under a claim id;
// every change it makes to the run names that id, so a job that lost the run changes nothing.
type RunJobStore interface {
	// RequestAgentRunJob marks a prepared run executing, unless a synchronous execute whose
	// claim was taken after staleBefore holds it; false when the run is not prepared or held.
	RequestAgentRunJob(ctx context.Context, id uuid.UUID, staleBefore time.Time) (bool, error)
	// ClaimAgentRunJob claims an executing run for claim from at on, unless another claim
	// taken or renewed after staleBefore holds it, and counts one more model call; it returns
	// the count, and ok false when the run is not executing or is held.
	ClaimAgentRunJob(ctx context.Context, id, claim uuid.UUID, at, staleBefore time.Time) (attempts int, ok bool, err error)
	// RenewAgentRunJobClaim moves the claim from claim to next with its lease starting at at,
	// adding addAttempts to the count of model calls; ok false when claim no longer holds it.
	RenewAgentRunJobClaim(ctx context.Context, id, claim, next uuid.UUID, at time.Time, addAttempts int) (attempts int, ok bool, err error)
	// ReleaseAgentRunJob gives up claim; the run stays executing for the next delivery.
	ReleaseAgentRunJob(ctx context.Context, id, claim uuid.UUID) error
	// SetAgentRunJobOutcome stores the outcome (drafted or failed) of the run under claim and
	// ends the claim; a Conflict when claim no longer holds it.
	SetAgentRunJobOutcome(ctx context.Context, r AgentRun, claim uuid.UUID) error
	// EnqueueRunJob writes the RunJob command, of tenant, to the outbox (in the transaction of
	// InTx).
	EnqueueRunJob(ctx context.Context, tenant uuid.UUID, job RunJobData) error
}

// ErrRunJobGaveUp wraps the error of a run job that failed the run: no retry of the
// command can change the outcome, and the command goes to the dead letters.
var ErrRunJobGaveUp = errors.New("the run failed")
