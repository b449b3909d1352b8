package domain

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// TaskType is epic, story, task or bug.
type TaskType string

// Status is a board column.
type Status string

// The statuses, which are the board columns.
const (
	StatusBacklog    Status = "backlog"
	StatusInProgress Status = "in_progress"
	StatusInReview   Status = "in_review"
	StatusDone       Status = "done"
)

// Columns are the board columns in their order.
var Columns = []Status{StatusBacklog, StatusInProgress, StatusInReview, StatusDone}

// ColumnTitle is the seed's title of a column ("in progress").
func ColumnTitle(s Status) string {
	switch s {
	case StatusInProgress:
		return "in progress"
	case StatusInReview:
		return "in review"
	}
	return string(s)
}

// InitialStatus is the status of a new task.
const InitialStatus = StatusBacklog

// moves are the allowed transitions: forward one column at a time, back one step from in
// progress and in review, and done may be reopened into in progress.
var moves = map[Status][]Status{
	StatusBacklog:    {StatusInProgress},
	StatusInProgress: {StatusBacklog, StatusInReview},
	StatusInReview:   {StatusInProgress, StatusDone},
	StatusDone:       {StatusInProgress},
}

// CheckMove decides a move: changed is false for a move to the current status (allowed, a
// no-op); any move not in the table is a Conflict.
func CheckMove(from, to Status) (changed bool, err error) {
	if from == to {
		return false, nil
	}
	for _, s := range moves[from] {
		if s == to {
			return true, nil
		}
	}
	return false, errs.Ef(errs.Conflict, "a task cannot move from %s to %s", from, to)
}

// AssigneeKind says what an assignee is.
type AssigneeKind string

// The assignee kinds.
const (
	AssigneeUser AssigneeKind = "user"
	AssigneeSeat AssigneeKind = "seat"
)

// Assignee is a member (kind user) or an ai seat of the item's team (kind seat).
type Assignee struct {
	Kind AssigneeKind
	ID   uuid.UUID
}

// Task is a board task.
type Task struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	TeamID         uuid.UUID
	Type           TaskType
	Title          string
	Description    string
	Status         Status
	Assignee       *Assignee
	ParentID       *uuid.UUID
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Scope is the item's team scope.
func (w Task) Scope() Scope { return TeamScope(w.OrganizationID, w.TeamID) }

// BoardColumn is one column of a board.
type BoardColumn struct {
	Status Status
	Items  []Task
}

// Board is a team's tasks in the four columns.
type Board struct {
	TeamID  uuid.UUID
	Columns []BoardColumn
}

// NewBoard puts items (already in display order) into the columns, always all four, in order.
// The columns share one array: a board of hundreds of items is copied once, not regrown column
// by column.
func NewBoard(team uuid.UUID, items []Task) Board {
	b := Board{TeamID: team, Columns: make([]BoardColumn, len(Columns))}
	all := make([]Task, 0, len(items))
	for i, s := range Columns {
		start := len(all)
		for _, it := range items {
			if it.Status == s {
				all = append(all, it)
			}
		}
		b.Columns[i] = BoardColumn{Status: s, Items: all[start:len(all):len(all)]}
	}
	return b
}

// TaskStore keeps tasks.
type TaskStore interface {
	InsertTask(ctx context.Context, w Task) error
	GetTask(ctx context.Context, id uuid.UUID) (Task, error)
	// GetTaskForUpdateWithStanding reads and locks a task, and reads what user holds along its
	// scope chain (the zero Standing when user is not a member of its organization), together.
	GetTaskForUpdateWithStanding(ctx context.Context, id, user uuid.UUID) (Task, Standing, error)
	// ListBoardItems lists a team's items in display order.
	ListBoardItems(ctx context.Context, team uuid.UUID) ([]Task, error)
	SetTaskStatus(ctx context.Context, id uuid.UUID, status Status, at time.Time) error
	SetTaskAssignee(ctx context.Context, id uuid.UUID, a *Assignee, at time.Time) error
	// ListCartable lists the items assigned to the user, of one organization or of all.
	ListCartable(ctx context.Context, user uuid.UUID, org *uuid.UUID, includeDone bool) ([]Task, error)
	// CopyTasks bulk-inserts items (benchmark data) and returns how many it wrote.
	CopyTasks(ctx context.Context, items []Task) (int64, error)
}
