package app

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// TaskInput is a new task.
type TaskInput struct {
	TeamID      uuid.UUID
	Type        domain.TaskType
	Title       string
	Description string
	ParentID    *uuid.UUID
}

// CreateTask creates a task in status backlog, unassigned (ManageWork). Its parent must
// be a task of the same team. The parent is fixed at creation and exists before the child,
// so parent links cannot form a cycle.
func (a *App) CreateTask(ctx context.Context, actor domain.Actor, in TaskInput) (domain.Task, error) {
	in.Title = strings.TrimSpace(in.Title)
	if in.Title == "" {
		return domain.Task{}, errs.InvalidFields(errs.Field("body.title", "must not be blank"))
	}
	var w domain.Task
	err := a.store.InTx(ctx, func(s domain.Store) error {
		t, _, err := a.team(ctx, s, actor, in.TeamID, domain.ManageWork)
		if err != nil {
			return err
		}
		if in.ParentID != nil {
			parent, err := s.GetTask(ctx, *in.ParentID)
			if err != nil && errs.KindOf(err) != errs.NotFound {
				return err
			}
			if err != nil || parent.TeamID != t.ID {
				return errs.InvalidFields(errs.Field("body.parent_id", "is not a task of the same team"))
			}
		}
		now := a.now()
		w = domain.Task{ID: a.newID(), OrganizationID: t.OrganizationID, TeamID: t.ID, Type: in.Type,
			Title: in.Title, Description: in.Description, Status: domain.InitialStatus, ParentID: in.ParentID,
			CreatedBy: createdBy(actor), CreatedAt: now, UpdatedAt: now}
		if err := s.InsertTask(ctx, w); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionTaskCreated, Scope: w.Scope(),
			TargetType: domain.TargetTask, TargetID: w.ID,
			After: map[string]any{"type": w.Type, "title": w.Title, "status": w.Status, "parent_id": w.ParentID},
		})
	})
	return w, err
}

// GetTask reads a task.
func (a *App) GetTask(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Task, error) {
	s := a.store
	w, err := s.GetTask(ctx, id)
	if err != nil {
		return domain.Task{}, err
	}
	_, err = a.authorize(ctx, s, actor, w.Scope(), domain.ViewBoard, "task")
	return w, err
}

// Board returns a team's tasks in the four columns. It checks the caller's blocks itself
// (CheckCaller need not run before it): the blocks, the team with the caller's standing and the
// items go to the database in one round trip; a blocked caller is refused first, and the team
// is checked before its items are returned, as when they were read one after the other.
// Release the board once it is written, so that the next board reuses its items' array.
func (a *App) Board(ctx context.Context, actor domain.Actor, team uuid.UUID) (domain.Board, error) {
	r, err := a.store.ReadBoard(ctx, domain.BoardQuery{Team: team, User: actor.UserID, Tenant: actor.TenantID,
		Blocks: actor.IsUser()})
	if err != nil {
		return domain.Board{}, err
	}
	if err := a.refuseBlocked(actor, r.Blocks); err != nil {
		return domain.Board{}, err
	}
	if r.TeamErr != nil {
		return domain.Board{}, r.TeamErr
	}
	st, err := callerStanding(actor, r.Standing)
	if err != nil {
		return domain.Board{}, err
	}
	if err := domain.Authorize(st, domain.ViewBoard, "team"); err != nil {
		return domain.Board{}, err
	}
	return domain.ArrangeBoard(team, r.Items).HandingBack(r.Release), nil
}

// MoveTask moves a task to another status along the allowed transitions (ManageWork);
// a forbidden move is a Conflict, a move to the current status changes and audits nothing.
func (a *App) MoveTask(ctx context.Context, actor domain.Actor, id uuid.UUID, to domain.Status) (domain.Task, error) {
	var w domain.Task
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if w, err = a.taskForUpdate(ctx, s, actor, id, domain.ManageWork); err != nil {
			return err
		}
		changed, err := domain.CheckMove(w.Status, to)
		if err != nil || !changed {
			return err
		}
		from := w.Status
		w.Status, w.UpdatedAt = to, a.now()
		// The move, its audit entry and its event reach the database in one round trip.
		return s.Pipeline(ctx, func(s domain.Store) error {
			if err := s.SetTaskStatus(ctx, w.ID, w.Status, w.UpdatedAt); err != nil {
				return err
			}
			return a.audit(ctx, s, actor, domain.Record{
				Action: domain.ActionTaskMoved, Scope: w.Scope(),
				TargetType: domain.TargetTask, TargetID: w.ID,
				Before: map[string]any{"status": from}, After: map[string]any{"status": to},
			})
		})
	})
	return w, err
}

// taskForUpdate loads and locks the task id for a change and checks p for actor on it. It
// checks the caller's blocks itself (CheckCaller need not run before the use cases that call
// it): the blocks and the task with the caller's standing go to the database in one round trip,
// with the transaction's BEGIN; a blocked caller is refused first, then a missing task.
func (a *App) taskForUpdate(ctx context.Context, s domain.Store, actor domain.Actor, id uuid.UUID, p domain.Permission) (domain.Task, error) {
	r, err := s.LockTask(ctx, domain.TaskLockQuery{ID: id, User: actor.UserID, Tenant: actor.TenantID, Blocks: actor.IsUser()})
	if err != nil {
		return domain.Task{}, err
	}
	if err := a.refuseBlocked(actor, r.Blocks); err != nil {
		return domain.Task{}, err
	}
	if r.TaskErr != nil {
		return domain.Task{}, r.TaskErr
	}
	st, err := callerStanding(actor, r.Standing)
	if err != nil {
		return r.Task, err
	}
	return r.Task, domain.Authorize(st, p, "task")
}

// AssignTask assigns a task to a member of the organization or an ai seat of its team,
// or unassigns it (nil) (ManageWork). Anything else is a 400.
func (a *App) AssignTask(ctx context.Context, actor domain.Actor, id uuid.UUID, to *domain.Assignee) (domain.Task, error) {
	var w domain.Task
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if w, err = a.taskForUpdate(ctx, s, actor, id, domain.ManageWork); err != nil {
			return err
		}
		if err := checkAssignee(ctx, s, w, to); err != nil {
			return err
		}
		before := w.Assignee
		w.Assignee, w.UpdatedAt = to, a.now()
		if err := s.SetTaskAssignee(ctx, w.ID, to, w.UpdatedAt); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionTaskAssigned, Scope: w.Scope(),
			TargetType: domain.TargetTask, TargetID: w.ID,
			Before: map[string]any{"assignee": assigneeJSON(before)}, After: map[string]any{"assignee": assigneeJSON(to)},
		})
	})
	return w, err
}

func checkAssignee(ctx context.Context, s domain.Store, w domain.Task, to *domain.Assignee) error {
	if to == nil {
		return nil
	}
	switch to.Kind {
	case domain.AssigneeUser:
		_, err := s.GetMember(ctx, w.OrganizationID, to.ID)
		if errs.KindOf(err) == errs.NotFound {
			return errs.InvalidFields(errs.Field("body.assignee.id", "is not a member of the organization"))
		}
		return err
	case domain.AssigneeSeat:
		seat, err := s.GetSeat(ctx, to.ID)
		if err != nil && errs.KindOf(err) != errs.NotFound {
			return err
		}
		if err != nil || seat.TeamID != w.TeamID || seat.State != domain.SeatAI {
			return errs.InvalidFields(errs.Field("body.assignee.id", "is not an ai seat of the task's team"))
		}
		return nil
	}
	return errs.InvalidFields(errs.Field("body.assignee.kind", "must be user or seat"))
}

func assigneeJSON(a *domain.Assignee) any {
	if a == nil {
		return nil
	}
	return map[string]any{"kind": a.Kind, "id": a.ID}
}

// Cartable lists the work assigned to the calling user, newest update first; done items only
// when includeDone. Only organizations the caller belongs to count: an org filter naming
// another organization gives an empty cartable (the contract declares no 404 here).
func (a *App) Cartable(ctx context.Context, actor domain.Actor, org *uuid.UUID, includeDone bool) ([]domain.Task, error) {
	if err := actor.RequireUser(); err != nil {
		return nil, err
	}
	return a.store.ListCartable(ctx, actor.UserID, org, includeDone)
}
