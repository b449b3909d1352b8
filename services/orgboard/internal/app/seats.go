package app

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// SeatInput is a new seat: human (UserID a member of the organization) or open. A seat becomes
// ai only when its agent is configured.
type SeatInput struct {
	TeamID uuid.UUID
	Title  string
	State  domain.SeatState
	UserID *uuid.UUID
}

// CreateSeat creates a seat on a team (ConfigureAgents: an Owner or a Lead of the team).
func (a *App) CreateSeat(ctx context.Context, actor domain.Actor, in SeatInput) (domain.Seat, error) {
	in.Title = strings.TrimSpace(in.Title)
	if in.Title == "" {
		return domain.Seat{}, errs.InvalidFields(errs.Field("body.title", "must not be blank"))
	}
	if in.State == "" {
		in.State = domain.SeatOpen
	}
	switch {
	case in.State != domain.SeatHuman && in.State != domain.SeatOpen:
		return domain.Seat{}, errs.InvalidFields(errs.Field("body.state", "must be human or open (ai is reached by configuring the seat's agent)"))
	case in.State == domain.SeatHuman && in.UserID == nil:
		return domain.Seat{}, errs.InvalidFields(errs.Field("body.user_id", "is required for a human seat"))
	case in.State == domain.SeatOpen && in.UserID != nil:
		return domain.Seat{}, errs.InvalidFields(errs.Field("body.user_id", "must be absent for an open seat"))
	}
	var seat domain.Seat
	err := a.store.InTx(ctx, func(s domain.Store) error {
		t, _, err := a.team(ctx, s, actor, in.TeamID, domain.ConfigureAgents)
		if err != nil {
			return err
		}
		if in.UserID != nil {
			if _, err := s.GetMember(ctx, t.OrganizationID, *in.UserID); err != nil {
				if errs.KindOf(err) == errs.NotFound {
					return errs.InvalidFields(errs.Field("body.user_id", "is not a member of the organization"))
				}
				return err
			}
		}
		seat = domain.Seat{ID: a.newID(), OrganizationID: t.OrganizationID, TeamID: t.ID, Title: in.Title,
			State: in.State, UserID: in.UserID, CreatedAt: a.now()}
		if err := s.InsertSeat(ctx, seat); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionSeatCreated, Scope: t.Scope(),
			TargetType: domain.TargetSeat, TargetID: seat.ID,
			After: map[string]any{"title": seat.Title, "state": seat.State, "user_id": seat.UserID},
		})
	})
	return seat, err
}

// ListSeats lists a team's seats.
func (a *App) ListSeats(ctx context.Context, actor domain.Actor, team uuid.UUID) ([]domain.Seat, error) {
	s := a.store
	if _, _, err := a.team(ctx, s, actor, team, domain.ViewBoard); err != nil {
		return nil, err
	}
	return s.ListSeats(ctx, team)
}
