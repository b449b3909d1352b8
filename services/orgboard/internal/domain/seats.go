package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// SeatState is human, open or ai.
type SeatState string

// The seat states.
const (
	SeatHuman SeatState = "human"
	SeatOpen  SeatState = "open"
	SeatAI    SeatState = "ai"
)

// Seat is a place on a team: occupied by a member (human), open, or occupied by an agent (ai).
// A seat has at most one agent (exactly one when ai).
type Seat struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	TeamID         uuid.UUID
	Title          string
	State          SeatState
	UserID         *uuid.UUID
	AgentID        *uuid.UUID
	CreatedAt      time.Time
}

// Scope is the seat's team scope.
func (s Seat) Scope() Scope { return TeamScope(s.OrganizationID, s.TeamID) }

// SeatStore keeps seats.
type SeatStore interface {
	InsertSeat(ctx context.Context, s Seat) error
	GetSeat(ctx context.Context, id uuid.UUID) (Seat, error)
	GetSeatForUpdate(ctx context.Context, id uuid.UUID) (Seat, error)
	ListSeats(ctx context.Context, team uuid.UUID) ([]Seat, error)
	// SetSeatAgent puts the agent on the seat, which becomes ai.
	SetSeatAgent(ctx context.Context, seat, agent uuid.UUID) error
}
