package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateSeat implements POST /api/orgboard/seats.
func (s *Server) CreateSeat(ctx context.Context, req orgboardserver.CreateSeatRequestObject) (orgboardserver.CreateSeatResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := app.SeatInput{TeamID: req.Body.TeamId, Title: req.Body.Title, UserID: req.Body.UserId}
	if req.Body.State != nil {
		in.State = domain.SeatState(*req.Body.State)
	}
	seat, err := s.app.CreateSeat(ctx, actor, in)
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateSeat201JSONResponse(seatOut(seat)), nil
}

// ListSeats implements GET /api/orgboard/seats.
func (s *Server) ListSeats(ctx context.Context, req orgboardserver.ListSeatsRequestObject) (orgboardserver.ListSeatsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	seats, err := s.app.ListSeats(ctx, actor, req.Params.TeamId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListSeats200JSONResponse{Data: mapSlice(seats, seatOut)}, nil
}
