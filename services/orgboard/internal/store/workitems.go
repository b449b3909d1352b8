package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertWorkItem stores a new, unassigned work item.
func (s *Store) InsertWorkItem(ctx context.Context, w domain.WorkItem) error {
	return translate(s.q.InsertWorkItem(ctx, orgboarddb.InsertWorkItemParams{
		ID: w.ID, OrganizationID: w.OrganizationID, TeamID: w.TeamID, Type: string(w.Type),
		Title: w.Title, Description: w.Description, Status: string(w.Status), ParentID: w.ParentID,
		CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt,
	}), "work item")
}

// GetWorkItem loads a work item.
func (s *Store) GetWorkItem(ctx context.Context, id uuid.UUID) (domain.WorkItem, error) {
	r, err := s.q.GetWorkItem(ctx, id)
	if err != nil {
		return domain.WorkItem{}, translate(err, "work item")
	}
	return workItem(r), nil
}

// GetWorkItemForUpdate loads and locks a work item.
func (s *Store) GetWorkItemForUpdate(ctx context.Context, id uuid.UUID) (domain.WorkItem, error) {
	r, err := s.q.GetWorkItemForUpdate(ctx, id)
	if err != nil {
		return domain.WorkItem{}, translate(err, "work item")
	}
	return workItem(r), nil
}

// ListBoardItems lists every work item of a team by created_at then id, in one query.
func (s *Store) ListBoardItems(ctx context.Context, team uuid.UUID) ([]domain.WorkItem, error) {
	rows, err := s.q.ListBoardItems(ctx, team)
	return workItems(rows, err)
}

// SetWorkItemStatus stores a move.
func (s *Store) SetWorkItemStatus(ctx context.Context, id uuid.UUID, status domain.Status, at time.Time) error {
	return s.q.SetWorkItemStatus(ctx, orgboarddb.SetWorkItemStatusParams{ID: id, Status: string(status), UpdatedAt: at})
}

// SetWorkItemAssignee stores an assignment (nil unassigns).
func (s *Store) SetWorkItemAssignee(ctx context.Context, id uuid.UUID, a *domain.Assignee, at time.Time) error {
	p := orgboarddb.SetWorkItemAssigneeParams{ID: id, UpdatedAt: at}
	if a != nil {
		v := a.ID
		switch a.Kind {
		case domain.AssigneeUser:
			p.AssigneeUserID = &v
		case domain.AssigneeSeat:
			p.AssigneeSeatID = &v
		}
	}
	return translate(s.q.SetWorkItemAssignee(ctx, p), "work item")
}

// ListCartable lists the items assigned to user in the organizations user belongs to.
func (s *Store) ListCartable(ctx context.Context, user uuid.UUID, org *uuid.UUID, includeDone bool) ([]domain.WorkItem, error) {
	rows, err := s.q.ListCartable(ctx, orgboarddb.ListCartableParams{UserID: &user, OrganizationID: org, IncludeDone: includeDone})
	return workItems(rows, err)
}

// CopyWorkItems bulk-loads work items (seeding).
func (s *Store) CopyWorkItems(ctx context.Context, items []domain.WorkItem) (int64, error) {
	rows := make([]orgboarddb.CopyWorkItemsParams, len(items))
	for i, w := range items {
		rows[i] = orgboarddb.CopyWorkItemsParams{
			ID: w.ID, OrganizationID: w.OrganizationID, TeamID: w.TeamID, Type: string(w.Type),
			Title: w.Title, Description: w.Description, Status: string(w.Status), ParentID: w.ParentID,
			CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
		}
	}
	return s.q.CopyWorkItems(ctx, rows)
}

func workItems(rows []orgboarddb.WorkItem, err error) ([]domain.WorkItem, error) {
	if err != nil {
		return nil, err
	}
	out := make([]domain.WorkItem, len(rows))
	for i, r := range rows {
		out[i] = workItem(r)
	}
	return out, nil
}

func workItem(r orgboarddb.WorkItem) domain.WorkItem {
	w := domain.WorkItem{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, Type: domain.WorkItemType(r.Type),
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
