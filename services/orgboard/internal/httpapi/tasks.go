package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateTask implements POST /api/orgboard/tasks.
func (s *Server) CreateTask(ctx context.Context, req orgboardserver.CreateTaskRequestObject) (orgboardserver.CreateTaskResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.app.CreateTask(ctx, actor, app.TaskInput{
		TeamID: req.Body.TeamId, Type: domain.TaskType(req.Body.Type), Title: req.Body.Title,
		Description: deref(req.Body.Description), ParentID: req.Body.ParentId,
	})
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateTask201JSONResponse(workItemOut(w)), nil
}

// GetTask implements GET /api/orgboard/tasks/{id}.
func (s *Server) GetTask(ctx context.Context, req orgboardserver.GetTaskRequestObject) (orgboardserver.GetTaskResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.app.GetTask(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetTask200JSONResponse(workItemOut(w)), nil
}

// GetBoard implements GET /api/orgboard/board.
func (s *Server) GetBoard(ctx context.Context, req orgboardserver.GetBoardRequestObject) (orgboardserver.GetBoardResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.app.Board(ctx, actor, req.Params.TeamId)
	if err != nil {
		return nil, err
	}
	return boardJSON{b}, nil
}

// MoveTask implements PATCH /api/orgboard/tasks/{id}/move.
func (s *Server) MoveTask(ctx context.Context, req orgboardserver.MoveTaskRequestObject) (orgboardserver.MoveTaskResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.app.MoveTask(ctx, actor, req.Id, domain.Status(req.Body.Status))
	if err != nil {
		return nil, err
	}
	return movedTaskJSON{w}, nil
}

// AssignTask implements PATCH /api/orgboard/tasks/{id}/assign.
func (s *Server) AssignTask(ctx context.Context, req orgboardserver.AssignTaskRequestObject) (orgboardserver.AssignTaskResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	var to *domain.Assignee
	if a := req.Body.Assignee; a != nil {
		to = &domain.Assignee{Kind: domain.AssigneeKind(a.Kind), ID: a.Id}
	}
	w, err := s.app.AssignTask(ctx, actor, req.Id, to)
	if err != nil {
		return nil, err
	}
	return orgboardserver.AssignTask200JSONResponse(workItemOut(w)), nil
}

// GetCartable implements GET /api/orgboard/cartable.
func (s *Server) GetCartable(ctx context.Context, req orgboardserver.GetCartableRequestObject) (orgboardserver.GetCartableResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	items, err := s.app.Cartable(ctx, actor, req.Params.OrganizationId, deref(req.Params.IncludeDone))
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetCartable200JSONResponse{UserId: actor.UserID, Items: mapSlice(items, workItemOut)}, nil
}
