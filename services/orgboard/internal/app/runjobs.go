package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// DefaultRunJobPolicy is the policy of run jobs where Limits.RunJob leaves a field zero.
var DefaultRunJobPolicy = domain.RunJobPolicy{Attempts: 3, Backoff: 2 * time.Second, MaxBackoff: time.Minute, Lease: 30 * time.Second}

// runJobPolicy is the configured policy with the defaults filled in.
func (a *App) runJobPolicy() domain.RunJobPolicy {
	p, d := a.limits.RunJob, DefaultRunJobPolicy
	if p.Attempts < 1 {
		p.Attempts = d.Attempts
	}
	if p.Backoff <= 0 {
		p.Backoff = d.Backoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = max(d.MaxBackoff, p.Backoff)
	}
	if p.Lease <= 0 {
		p.Lease = d.Lease
	}
	return p
}

// RequestAgentRunExecution marks a prepared run executing and, in the same transaction, writes
// the command that executes it to the outbox and publishes the new state (ManageWork): once
// committed, the execution survives a restart of the service or of the broker. A Conflict
// unless the run is prepared and no synchronous execute holds it.
func (a *App) RequestAgentRunExecution(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.AgentRun, error) {
	run, err := a.executable(ctx, actor, id)
	if err != nil {
		return run, err
	}
	now := a.now()
	err = a.store.InTx(ctx, func(s domain.Store) error {
		ok, err := s.RequestAgentRunJob(ctx, run.ID, now.Add(-a.limits.RunClaim))
		if err != nil {
			return err
		}
		if !ok {
			return errRunHeld
		}
		run.Status, run.FailureReason, run.Attempts = domain.RunExecuting, nil, 0
		if err := s.EnqueueRunJob(ctx, a.tenantOf(actor), domain.NewRunJobData(run.ID, actor)); err != nil {
			return err
		}
		return a.publish(ctx, s, actor, runStateChanged(run, now), now)
	})
	return run, err
}

// HandleRunJob executes a run for its command: it claims the run, calls the model connection
// (then the fallback) and stores the draft, or -- after the policy's attempts, retrying only
// failures that can pass, with backoff -- marks the run failed with the reason, auditing and
// publishing the outcome in the transaction that stores it. Each model call is made under a
// claim of its own, taken in the database before the call: a redelivered command or a second
// consumer waits while a live job holds the run (the holder renews its lease) and finds it
// finished, so a call is never repeated for a claim that holds or finished. A run that is not
// executing any more (finished, or gone) acknowledges the command.
//
// A returned error wrapping domain.ErrRunJobGaveUp means the run failed (the command belongs
// in the dead letters); any other error (the database unavailable, the service stopping)
// leaves the run executing, its claim given up, for the command to be delivered again.
func (a *App) HandleRunJob(ctx context.Context, job domain.RunJobData) error {
	p := a.runJobPolicy()
	run, lease, attempts, err := a.claimRunJob(ctx, job.AgentRunID, p)
	if err != nil || lease == nil {
		return err
	}
	defer lease.stop()
	// The outcome is recorded, or the claim given up, even while the service stops: the model
	// may have been paid for.
	keep := context.WithoutCancel(ctx)
	finished := false
	defer func() {
		if !finished {
			lease.release(keep)
		}
	}()
	agent, err := a.store.GetAgent(ctx, run.AgentID)
	if err != nil {
		return err
	}
	step := func(name string, ok bool, detail string) {
		run.Trace = append(run.Trace, domain.TraceStep{At: a.now(), Step: name, OK: ok, Detail: traceDetail(detail)})
	}
	for {
		var call modelCall
		if attempts > p.Attempts {
			// The job holding the last attempt stopped while the model answered.
			call.err = fmt.Errorf("the last of %d attempts was interrupted", p.Attempts)
		} else {
			call = a.callModel(lease.ctx, &run, agent)
			if call.err != nil && ctx.Err() != nil {
				return ctx.Err() // stopping: the command is delivered again
			}
			if call.err != nil && lease.lost() {
				a.log.WarnContext(ctx, "a run job lost its claim while the model answered", "run_id", run.ID)
				finished = true
				return nil
			}
		}
		last := call.err == nil || !call.retryable || attempts >= p.Attempts
		if !last {
			delay := p.Delay(attempts)
			step("model_retry", true, fmt.Sprintf("attempt %d of %d failed; trying again in %s", attempts, p.Attempts, delay))
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(delay):
			}
			var ok bool
			if attempts, ok, err = lease.next(ctx); err != nil || !ok {
				finished = !ok && err == nil // another job holds the run now
				return err
			}
			continue
		}
		run.Attempts = min(attempts, p.Attempts)
		what := "no model connection answered"
		if run.Attempts > 1 {
			what = fmt.Sprintf("no model connection answered in %d attempts", run.Attempts)
		}
		outcome(&run, a.now(), call, what)
		err := a.store.InTx(keep, func(s domain.Store) error {
			if err := s.SetAgentRunJobOutcome(keep, run, lease.claim()); err != nil {
				return err
			}
			return a.recordOutcome(keep, s, job.Actor(), run, true)
		})
		if errs.KindOf(err) == errs.Conflict {
			finished = true // another job took the run over: its outcome stands
			return nil
		}
		if err != nil {
			return err
		}
		finished = true
		if call.err != nil {
			return fmt.Errorf("%w: %s", domain.ErrRunJobGaveUp, *run.FailureReason)
		}
		return nil
	}
}

// runStateChanged is the orgboard.agent_run.state_changed.v1 event of run, which entered its
// state (executing, drafted or failed) at at.
func runStateChanged(run domain.AgentRun, at time.Time) events.OrgboardAgentRunStateChangedV1Payload {
	state := events.OrgboardAgentRunStateExecuting
	switch run.Status {
	case domain.RunDrafted:
		state = events.OrgboardAgentRunStateDrafted
	case domain.RunFailed:
		state = events.OrgboardAgentRunStateFailed
	}
	return events.OrgboardAgentRunStateChangedV1Payload{AgentRunID: run.ID, OrganizationID: run.OrganizationID,
		TeamID: run.TeamID, AgentID: run.AgentID, TaskID: run.TaskID, Status: state, FailureReason: run.FailureReason,
		FallbackUsed: run.FallbackUsed, Attempts: run.Attempts, ChangedAt: at}
}

// claimRunJob claims the run of a command. While another job holds it, it waits for that job
// to finish or for its lease to run out; a nil lease means there is nothing to do (the run is
// finished or gone).
func (a *App) claimRunJob(ctx context.Context, id uuid.UUID, p domain.RunJobPolicy) (domain.AgentRun, *runLease, int, error) {
	for {
		run, err := a.store.GetAgentRun(ctx, id)
		if errs.KindOf(err) == errs.NotFound {
			a.log.InfoContext(ctx, "run job for a run that does not exist", "run_id", id)
			return run, nil, 0, nil
		}
		if err != nil {
			return run, nil, 0, err
		}
		if run.Status != domain.RunExecuting {
			return run, nil, 0, nil
		}
		claim, at := a.newID(), a.now()
		attempts, ok, err := a.store.ClaimAgentRunJob(ctx, id, claim, at, at.Add(-p.Lease))
		if err != nil {
			return run, nil, 0, err
		}
		if ok {
			run.Attempts = attempts
			return run, a.holdRunJob(ctx, id, claim, p), attempts, nil
		}
		select {
		case <-ctx.Done():
			return run, nil, 0, ctx.Err()
		case <-time.After(p.Lease / 4):
		}
	}
}

// runLease is a job's claim on a run, renewed every Lease/3 until stopped. Its ctx ends when
// the claim is lost (a renewal found another claim), so the model call it guards stops.
type runLease struct {
	a      *App
	id     uuid.UUID
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	current  uuid.UUID
	wasTaken bool
}

func (a *App) holdRunJob(ctx context.Context, id, claim uuid.UUID, p domain.RunJobPolicy) *runLease {
	lctx, cancel := context.WithCancel(ctx)
	l := &runLease{a: a, id: id, ctx: lctx, cancel: cancel, done: make(chan struct{}), current: claim}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(p.Lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-lctx.Done():
				return
			case <-tick.C:
				if _, ok, err := l.renew(lctx, false); err == nil && !ok {
					return
				} else if err != nil && lctx.Err() == nil {
					a.log.WarnContext(ctx, "the lease of a run job could not be renewed", "run_id", id, "error", err.Error())
				}
			}
		}
	}()
	return l
}

// renew starts the claim's lease again; with next, under a new claim counting one more model
// call. A claim found taken cancels the lease's ctx.
func (l *runLease) renew(ctx context.Context, next bool) (int, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	claim, add := l.current, 0
	if next {
		claim, add = l.a.newID(), 1
	}
	attempts, ok, err := l.a.store.RenewAgentRunJobClaim(ctx, l.id, l.current, claim, l.a.now(), add)
	if err != nil {
		return 0, false, err
	}
	if !ok {
		l.wasTaken = true
		l.cancel()
		return 0, false, nil
	}
	l.current = claim
	return attempts, true, nil
}

// next moves to a new claim for one more model call.
func (l *runLease) next(ctx context.Context) (int, bool, error) { return l.renew(ctx, true) }

func (l *runLease) claim() uuid.UUID {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current
}

func (l *runLease) lost() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wasTaken
}

// release gives the claim up, so that the next delivery of the command claims the run at once.
func (l *runLease) release(ctx context.Context) {
	l.stop()
	if l.lost() {
		return
	}
	if err := l.a.store.ReleaseAgentRunJob(ctx, l.id, l.claim()); err != nil && !errors.Is(err, context.Canceled) {
		l.a.log.ErrorContext(ctx, "the claim of a run job could not be given up", "run_id", l.id, "error", err.Error())
	}
}

// stop ends the renewals and waits for them.
func (l *runLease) stop() {
	l.cancel()
	<-l.done
}
