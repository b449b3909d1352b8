package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// RequestAgentRunJob marks a prepared run executing (see domain.RunJobStore).
func (s *Store) RequestAgentRunJob(ctx context.Context, id uuid.UUID, staleBefore time.Time) (bool, error) {
	n, err := s.q.RequestAgentRunJob(ctx, orgboarddb.RequestAgentRunJobParams{ID: id, StaleBefore: staleBefore})
	return n == 1, translate(err, "agent run")
}

// ClaimAgentRunJob claims an executing run for a job (see domain.RunJobStore).
func (s *Store) ClaimAgentRunJob(ctx context.Context, id, claim uuid.UUID, at, staleBefore time.Time) (int, bool, error) {
	n, err := s.q.ClaimAgentRunJob(ctx, orgboarddb.ClaimAgentRunJobParams{ID: id, JobClaim: &claim, ClaimedAt: &at, StaleBefore: staleBefore})
	return claimed(n, err)
}

// RenewAgentRunJobClaim renews or moves a job's claim (see domain.RunJobStore).
func (s *Store) RenewAgentRunJobClaim(ctx context.Context, id, claim, next uuid.UUID, at time.Time, addAttempts int) (int, bool, error) {
	n, err := s.q.RenewAgentRunJobClaim(ctx, orgboarddb.RenewAgentRunJobClaimParams{ID: id, JobClaim: &claim, NextClaim: &next,
		ClaimedAt: &at, AddAttempts: int32(addAttempts)})
	return claimed(n, err)
}

func claimed(attempts int32, err error) (int, bool, error) {
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, translate(err, "agent run")
	}
	return int(attempts), true, nil
}

// ReleaseAgentRunJob gives up a job's claim.
func (s *Store) ReleaseAgentRunJob(ctx context.Context, id, claim uuid.UUID) error {
	return translate(s.q.ReleaseAgentRunJob(ctx, orgboarddb.ReleaseAgentRunJobParams{ID: id, JobClaim: &claim}), "agent run")
}

// SetAgentRunJobOutcome stores the outcome of a run's job under its claim.
func (s *Store) SetAgentRunJobOutcome(ctx context.Context, r domain.AgentRun, claim uuid.UUID) error {
	_, trace, err := runJSON(r)
	if err != nil {
		return err
	}
	n, err := s.q.SetAgentRunJobOutcome(ctx, orgboarddb.SetAgentRunJobOutcomeParams{
		ID: r.ID, Status: string(r.Status), Draft: r.Draft, Model: r.Model, ApiConfigID: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, Trace: trace, ExecutedAt: r.ExecutedAt, FailureReason: r.FailureReason, JobClaim: &claim,
	})
	if err != nil {
		return translate(err, "agent run")
	}
	if n == 0 {
		return errs.E(errs.Conflict, "the run's job lost its claim while the model answered")
	}
	return nil
}

// EnqueueRunJob writes the run's execution command to the outbox.
func (s *Store) EnqueueRunJob(ctx context.Context, tenant uuid.UUID, job domain.RunJobData) error {
	if s.tx == nil {
		return fmt.Errorf("the command of run %s is written inside a transaction only", job.AgentRunID)
	}
	env, err := bus.NewEnvelope(domain.RunJob, tenant, job)
	if err != nil {
		return err
	}
	return bus.PublishEventsInTx(ctx, s.tx, env)
}
