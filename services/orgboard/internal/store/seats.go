package store

import (
	"context"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertSeat stores a human or open seat.
func (s *Store) InsertSeat(ctx context.Context, st domain.Seat) error {
	return translate(s.q.InsertSeat(ctx, orgboarddb.InsertSeatParams{
		ID: st.ID, OrganizationID: st.OrganizationID, TeamID: st.TeamID, Title: st.Title,
		State: string(st.State), UserID: st.UserID, CreatedAt: st.CreatedAt,
	}), "seat")
}

// GetSeat loads a seat.
func (s *Store) GetSeat(ctx context.Context, id uuid.UUID) (domain.Seat, error) {
	r, err := s.q.GetSeat(ctx, id)
	if err != nil {
		return domain.Seat{}, translate(err, "seat")
	}
	return seat(r), nil
}

// GetSeatForUpdate loads and locks a seat (configuring its agent serialises on it).
func (s *Store) GetSeatForUpdate(ctx context.Context, id uuid.UUID) (domain.Seat, error) {
	r, err := s.q.GetSeatForUpdate(ctx, id)
	if err != nil {
		return domain.Seat{}, translate(err, "seat")
	}
	return seat(r), nil
}

// ListSeats lists a team's seats by creation.
func (s *Store) ListSeats(ctx context.Context, team uuid.UUID) ([]domain.Seat, error) {
	rows, err := s.q.ListSeats(ctx, team)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Seat, len(rows))
	for i, r := range rows {
		out[i] = seat(r)
	}
	return out, nil
}

// SetSeatAgent flips a seat to ai, pointing at agent. Conflict when the agent already sits on
// another seat.
func (s *Store) SetSeatAgent(ctx context.Context, seat, agent uuid.UUID) error {
	return translate(s.q.SetSeatAgent(ctx, orgboarddb.SetSeatAgentParams{ID: seat, AgentID: &agent}), "seat")
}

func seat(r orgboarddb.Seat) domain.Seat {
	return domain.Seat{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, Title: r.Title,
		State: domain.SeatState(r.State), UserID: r.UserID, AgentID: r.AgentID, CreatedAt: r.CreatedAt,
	}
}
