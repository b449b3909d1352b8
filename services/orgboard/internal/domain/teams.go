package domain

import (
	"time"

	"github.com/google/uuid"
)

// Team belongs to an organization and optionally to a product of it.
type Team struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	ProductID      *uuid.UUID
	Name           string
	CreatedAt      time.Time
}

// Scope is the team's place in the scope chain.
func (t Team) Scope() Scope { return TeamScope(t.OrganizationID, t.ID) }

// TeamLead is a member holding the Lead role on a team.
type TeamLead struct {
	TeamID     uuid.UUID
	UserID     uuid.UUID
	AssignedAt time.Time
}

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
