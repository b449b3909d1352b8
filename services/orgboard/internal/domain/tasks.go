package domain

import (
	"context"
	"slices"
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
	// release hands the items' array back to the store (nil: nothing to hand back).
	release func()
}

// HandingBack returns b with release, which Release calls.
func (b Board) HandingBack(release func()) Board {
	b.release = release
	return b
}

// Release hands the board's items back for a later board to reuse: neither the board nor any
// of its items may be read after it. Once is enough; a board never released is collected as
// garbage.
func (b Board) Release() {
	if b.release != nil {
		b.release()
	}
}

// NewBoard puts items (already in display order) into the columns, always all four, in order.
// items is left as it is: the board holds a copy, made once.
func NewBoard(team uuid.UUID, items []Task) Board { return ArrangeBoard(team, slices.Clone(items)) }

// ArrangeBoard is NewBoard for items the caller hands over: they are reordered in place, column
// after column, each column in their order, and the columns are sub-slices of them (a board of
// hundreds of items is not copied). Items of no column are left out.
func ArrangeBoard(team uuid.UUID, items []Task) Board {
	if items == nil {
		items = []Task{}
	}
	column := func(s Status) int {
		if i := slices.Index(Columns, s); i >= 0 {
			return i
		}
		return len(Columns)
	}
	// starts[c] is where column c begins; the items of no column come after the last.
	starts := make([]int, len(Columns)+2)
	for _, it := range items {
		starts[column(it.Status)+1]++
	}
	for c := 1; c < len(starts); c++ {
		starts[c] += starts[c-1]
	}
	// dest[i] is where items[i] goes (a stable counting sort); the moves follow its cycles.
	next := slices.Clone(starts)
	dest := make([]int, len(items))
	for i, it := range items {
		c := column(it.Status)
		dest[i] = next[c]
		next[c]++
	}
	for i := range items {
		for dest[i] != i {
			j := dest[i]
			items[i], items[j] = items[j], items[i]
			dest[i], dest[j] = dest[j], dest[i]
		}
	}
	b := Board{TeamID: team, Columns: make([]BoardColumn, len(Columns))}
	for c, s := range Columns {
		b.Columns[c] = BoardColumn{Status: s, Items: items[starts[c]:starts[c+1]:starts[c+1]]}
	}
	return b
}

// BoardQuery is what a board request reads: the caller's blocks (when Blocks), the team with
// what the user holds along its scope chain, and the team's items.
type BoardQuery struct {
	Team, User, Tenant uuid.UUID
	Blocks             bool
}

// BoardRead is what ReadBoard read. A missing team is TeamErr (NotFound), not ReadBoard's error,
// so that the caller can refuse a blocked caller first, as it would without the team.
type BoardRead struct {
	Blocks   []Block
	Team     Team
	TeamErr  error
	Standing Standing
	Items    []Task
	// Release hands Items' array back for reuse once nothing reads them any more (nil when
	// there is nothing to hand back); calling it more than once does nothing more.
	Release func()
}

// TaskLockQuery is what a change of a task reads first: the caller's blocks (when Blocks), and
// the task, locked, with what User holds along its scope chain (the zero Standing when User is
// not a member of its organization).
type TaskLockQuery struct {
	ID, User, Tenant uuid.UUID
	Blocks           bool
}

// TaskLock is what LockTask read. A missing task is TaskErr (NotFound), not LockTask's error, so
// that the caller can refuse a blocked caller first, as it would without the task.
type TaskLock struct {
	Blocks   []Block
	Task     Task
	TaskErr  error
	Standing Standing
}

// TaskStore keeps tasks.
type TaskStore interface {
	InsertTask(ctx context.Context, w Task) error
	GetTask(ctx context.Context, id uuid.UUID) (Task, error)
	// LockTask reads what a change of a task needs first, in one round trip (see TaskLockQuery).
	LockTask(ctx context.Context, q TaskLockQuery) (TaskLock, error)
	// ListBoardItems lists a team's items in display order.
	ListBoardItems(ctx context.Context, team uuid.UUID) ([]Task, error)
	// ReadBoard reads what a board request needs in one round trip (see BoardQuery).
	ReadBoard(ctx context.Context, q BoardQuery) (BoardRead, error)
	SetTaskStatus(ctx context.Context, id uuid.UUID, status Status, at time.Time) error
	SetTaskAssignee(ctx context.Context, id uuid.UUID, a *Assignee, at time.Time) error
	// ListCartable lists the items assigned to the user, of one organization or of all.
	ListCartable(ctx context.Context, user uuid.UUID, org *uuid.UUID, includeDone bool) ([]Task, error)
	// CopyTasks bulk-inserts items (benchmark data) and returns how many it wrote.
	CopyTasks(ctx context.Context, items []Task) (int64, error)
}
