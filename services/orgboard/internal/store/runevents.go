package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// RunStateChanged is the event a run's change to executing, drafted or failed publishes.
const RunStateChanged = "orgboard.agent_run.state_changed.v1"

type runStateChanged struct {
	AgentRunID     uuid.UUID `json:"agent_run_id"`
	OrganizationID uuid.UUID `json:"organization_id"`
	TeamID         uuid.UUID `json:"team_id"`
	AgentID        uuid.UUID `json:"agent_id"`
	TaskID         uuid.UUID `json:"task_id"`
	Status         string    `json:"status"`
	FailureReason  *string   `json:"failure_reason"`
	FallbackUsed   bool      `json:"fallback_used"`
	Attempts       int       `json:"attempts"`
	ChangedAt      time.Time `json:"changed_at"`
}

// PublishRunStateChanged writes the run's state change to the outbox.
func (s *Store) PublishRunStateChanged(ctx context.Context, tenant uuid.UUID, r domain.AgentRun, at time.Time) error {
	if s.tx == nil {
		return fmt.Errorf("the event of run %s is written inside a transaction only", r.ID)
	}
	env, err := bus.NewEnvelope(RunStateChanged, tenant, runStateChanged{
		AgentRunID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, AgentID: r.AgentID, TaskID: r.TaskID,
		Status: string(r.Status), FailureReason: r.FailureReason, FallbackUsed: r.FallbackUsed, Attempts: r.Attempts, ChangedAt: at,
	})
	if err != nil {
		return err
	}
	return bus.PublishEventsInTx(ctx, s.tx, env)
}
