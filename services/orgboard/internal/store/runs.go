package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertAgentRun stores a prepared run.
func (s *Store) InsertAgentRun(ctx context.Context, r domain.AgentRun) error {
	sections, trace, err := runJSON(r)
	if err != nil {
		return err
	}
	return translate(s.q.InsertAgentRun(ctx, orgboarddb.InsertAgentRunParams{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, AgentID: r.AgentID, TaskID: r.TaskID,
		Status: string(r.Status), Sections: sections, Prompt: r.Prompt, Trace: trace, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
	}), "agent run")
}

// GetAgentRun loads a run.
func (s *Store) GetAgentRun(ctx context.Context, id uuid.UUID) (domain.AgentRun, error) {
	r, err := s.q.GetAgentRun(ctx, id)
	if err != nil {
		return domain.AgentRun{}, translate(err, "agent run")
	}
	return agentRun(r)
}

// GetAgentRunForUpdate loads and locks a run.
func (s *Store) GetAgentRunForUpdate(ctx context.Context, id uuid.UUID) (domain.AgentRun, error) {
	r, err := s.q.GetAgentRunForUpdate(ctx, id)
	if err != nil {
		return domain.AgentRun{}, translate(err, "agent run")
	}
	return agentRun(r)
}

// ListAgentRunsOfTask lists a task's runs, newest first.
func (s *Store) ListAgentRunsOfTask(ctx context.Context, task uuid.UUID) ([]domain.AgentRun, error) {
	rows, err := s.q.ListAgentRunsOfTask(ctx, task)
	if err != nil {
		return nil, err
	}
	out := make([]domain.AgentRun, len(rows))
	for i, r := range rows {
		if out[i], err = agentRun(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ClaimAgentRun marks a prepared run as being executed (see domain.RunStore).
func (s *Store) ClaimAgentRun(ctx context.Context, id uuid.UUID, at, staleBefore time.Time) (bool, error) {
	n, err := s.q.ClaimAgentRun(ctx, orgboarddb.ClaimAgentRunParams{ID: id, ClaimedAt: &at, StaleBefore: staleBefore})
	return n == 1, translate(err, "agent run")
}

// ReleaseAgentRun gives up a claim; the run stays prepared.
func (s *Store) ReleaseAgentRun(ctx context.Context, id uuid.UUID, claimedAt time.Time) error {
	return translate(s.q.ReleaseAgentRun(ctx, orgboarddb.ReleaseAgentRunParams{ID: id, ClaimedAt: &claimedAt}), "agent run")
}

// SetAgentRunExecution stores the outcome of executing a run under the claim taken at claimedAt.
func (s *Store) SetAgentRunExecution(ctx context.Context, r domain.AgentRun, claimedAt time.Time) error {
	_, trace, err := runJSON(r)
	if err != nil {
		return err
	}
	n, err := s.q.SetAgentRunExecution(ctx, orgboarddb.SetAgentRunExecutionParams{
		ID: r.ID, Status: string(r.Status), Draft: r.Draft, Model: r.Model, ApiConfigID: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, Trace: trace, ExecutedAt: r.ExecutedAt, FailureReason: r.FailureReason, ClaimedAt: claimedAt,
	})
	if err != nil {
		return translate(err, "agent run")
	}
	if n == 0 {
		return errs.E(errs.Conflict, "the run was taken over by another execute while the model answered")
	}
	return nil
}

// SetAgentRunApproval stores the approved text and its edit distance.
func (s *Store) SetAgentRunApproval(ctx context.Context, r domain.AgentRun) error {
	if r.ApprovedAt == nil {
		return fmt.Errorf("approval of run %s without a time", r.ID)
	}
	return translate(s.q.SetAgentRunApproval(ctx, orgboarddb.SetAgentRunApprovalParams{
		ID: r.ID, FinalText: r.FinalText, EditDistance: r.EditDistance, ApprovedBy: r.ApprovedBy, ApprovedAt: r.ApprovedAt,
	}), "agent run")
}

func runJSON(r domain.AgentRun) (sections, trace json.RawMessage, err error) {
	if r.Sections == nil {
		r.Sections = []domain.PromptSection{}
	}
	if r.Trace == nil {
		r.Trace = []domain.TraceStep{}
	}
	if sections, err = json.Marshal(r.Sections); err != nil {
		return nil, nil, err
	}
	trace, err = json.Marshal(r.Trace)
	return sections, trace, err
}

func agentRun(r orgboarddb.AgentRun) (domain.AgentRun, error) {
	out := domain.AgentRun{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, AgentID: r.AgentID, TaskID: r.TaskID,
		Status: domain.RunStatus(r.Status), Prompt: r.Prompt, Draft: r.Draft, Model: r.Model, ApiConfigID: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, FinalText: r.FinalText, EditDistance: r.EditDistance, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, ExecutedAt: r.ExecutedAt, ApprovedBy: r.ApprovedBy, ApprovedAt: r.ApprovedAt,
		FailureReason: r.FailureReason, Attempts: int(r.Attempts),
	}
	if err := json.Unmarshal(r.Sections, &out.Sections); err != nil {
		return out, fmt.Errorf("agent run %s sections: %w", r.ID, err)
	}
	if err := json.Unmarshal(r.Trace, &out.Trace); err != nil {
		return out, fmt.Errorf("agent run %s trace: %w", r.ID, err)
	}
	for i := range out.Trace {
		out.Trace[i].At = out.Trace[i].At.UTC()
	}
	return out, nil
}
