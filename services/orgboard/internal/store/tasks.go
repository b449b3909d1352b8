package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertTask stores a new, unassigned task.
func (s *Store) InsertTask(ctx context.Context, w domain.Task) error {
	return translate(s.q.InsertTask(ctx, orgboarddb.InsertTaskParams{
		ID: w.ID, OrganizationID: w.OrganizationID, TeamID: w.TeamID, Type: string(w.Type),
		Title: w.Title, Description: w.Description, Status: string(w.Status), ParentID: w.ParentID,
		CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt,
	}), "task")
}

// GetTask loads a task.
func (s *Store) GetTask(ctx context.Context, id uuid.UUID) (domain.Task, error) {
	r, err := s.q.GetTask(ctx, id)
	if err != nil {
		return domain.Task{}, translate(err, "task")
	}
	return task(r), nil
}

// LockTask sends the caller's blocks (when q.Blocks) and the task locked with what the user
// holds along its scope (one statement) as one batch; in a transaction that has not begun, its
// BEGIN travels with them (pgxdb.Begin): one round trip.
func (s *Store) LockTask(ctx context.Context, q domain.TaskLockQuery) (domain.TaskLock, error) {
	var r domain.TaskLock
	b := &pgx.Batch{}
	if q.Blocks {
		queueBlocks(ctx, b, q.User, q.Tenant, &r.Blocks)
	}
	queue(ctx, b, func(ctx context.Context, g *orgboarddb.Queries) error {
		_, err := g.GetTaskForUpdateWithStanding(ctx, orgboarddb.GetTaskForUpdateWithStandingParams{ID: q.ID, UserID: q.User})
		return err
	}).QueryRow(func(row pgx.Row) error {
		// The generated query scans the batch's row.
		t, err := orgboarddb.New(rowOf{row}).GetTaskForUpdateWithStanding(ctx, orgboarddb.GetTaskForUpdateWithStandingParams{})
		if errors.Is(err, pgx.ErrNoRows) {
			r.TaskErr = translate(err, "task")
			return nil
		}
		r.Task, r.Standing = task(t.WorkItem), standingOf(t.Role, t.TeamLead, t.LeadsSomeTeam)
		return err
	})
	if err := s.sendBatch(ctx, b); err != nil {
		return domain.TaskLock{}, translate(err, "task")
	}
	return r, nil
}

// ListBoardItems lists every task of a team by created_at then id, in one query.
func (s *Store) ListBoardItems(ctx context.Context, team uuid.UUID) ([]domain.Task, error) {
	rows, err := s.q.ListBoardItems(ctx, team)
	return tasks(rows, err)
}

// SetTaskStatus stores a move.
func (s *Store) SetTaskStatus(ctx context.Context, id uuid.UUID, status domain.Status, at time.Time) error {
	return s.q.SetTaskStatus(ctx, orgboarddb.SetTaskStatusParams{ID: id, Status: string(status), UpdatedAt: at})
}

// SetTaskAssignee stores an assignment (nil unassigns).
func (s *Store) SetTaskAssignee(ctx context.Context, id uuid.UUID, a *domain.Assignee, at time.Time) error {
	p := orgboarddb.SetTaskAssigneeParams{ID: id, UpdatedAt: at}
	if a != nil {
		v := a.ID
		switch a.Kind {
		case domain.AssigneeUser:
			p.AssigneeUserID = &v
		case domain.AssigneeSeat:
			p.AssigneeSeatID = &v
		}
	}
	return translate(s.q.SetTaskAssignee(ctx, p), "task")
}

// ListCartable lists the items assigned to user in the organizations user belongs to.
func (s *Store) ListCartable(ctx context.Context, user uuid.UUID, org *uuid.UUID, includeDone bool) ([]domain.Task, error) {
	rows, err := s.q.ListCartable(ctx, orgboarddb.ListCartableParams{UserID: &user, OrganizationID: org, IncludeDone: includeDone})
	return tasks(rows, err)
}

// CopyTasks bulk-loads tasks (seeding).
func (s *Store) CopyTasks(ctx context.Context, items []domain.Task) (int64, error) {
	rows := make([]orgboarddb.CopyTasksParams, len(items))
	for i, w := range items {
		rows[i] = orgboarddb.CopyTasksParams{
			ID: w.ID, OrganizationID: w.OrganizationID, TeamID: w.TeamID, Type: string(w.Type),
			Title: w.Title, Description: w.Description, Status: string(w.Status), ParentID: w.ParentID,
			CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
		}
	}
	return s.q.CopyTasks(ctx, rows)
}

func tasks(rows []orgboarddb.WorkItem, err error) ([]domain.Task, error) {
	if err != nil {
		return nil, err
	}
	out := make([]domain.Task, len(rows))
	for i, r := range rows {
		out[i] = task(r)
	}
	return out, nil
}

func task(r orgboarddb.WorkItem) domain.Task {
	w := domain.Task{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, Type: domain.TaskType(r.Type),
		Title: r.Title, Description: r.Description, Status: domain.Status(r.Status), ParentID: r.ParentID,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	switch {
	case r.AssigneeUserID != nil:
		w.Assignee = &domain.Assignee{Kind: domain.AssigneeUser, ID: *r.AssigneeUserID}
	case r.AssigneeSeatID != nil:
		w.Assignee = &domain.Assignee{Kind: domain.AssigneeSeat, ID: *r.AssigneeSeatID}
	}
	return w
}
