package domain

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Autonomy is the agent's autonomy dial, lowest to highest.
type Autonomy string

// The autonomy levels: suggest proposes only (no tool calls); draft may call read-only tools;
// act_with_approval may call any bound tool through the governed gateway (the call there is the
// human approval); autonomous is act_with_approval until a model-driven loop exists.
const (
	AutonomySuggest         Autonomy = "suggest"
	AutonomyDraft           Autonomy = "draft"
	AutonomyActWithApproval Autonomy = "act_with_approval"
	AutonomyAutonomous      Autonomy = "autonomous"
)

// AllowsToolCall decides the governed gateway: may an agent at this level call a tool whose
// server annotates it readOnly?
func (a Autonomy) AllowsToolCall(readOnly bool) bool {
	switch a {
	case AutonomyDraft:
		return readOnly
	case AutonomyActWithApproval, AutonomyAutonomous:
		return true
	}
	return false
}

// Agent is the AI agent configured on a seat (exactly one per seat).
type Agent struct {
	ID                  uuid.UUID
	OrganizationID      uuid.UUID
	TeamID              uuid.UUID
	SeatID              uuid.UUID
	Name                string
	Monogram            string
	Autonomy            Autonomy
	ApiConfigID         uuid.UUID
	FallbackApiConfigID *uuid.UUID
	SkillKeys           []string
	Docs                []string
	Persona             string
	McpServerIDs        []uuid.UUID
	ProfileID           *uuid.UUID
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Scope is the agent's team scope.
func (a Agent) Scope() Scope { return TeamScope(a.OrganizationID, a.TeamID) }

// BindsServer reports whether the server is bound to the agent.
func (a Agent) BindsServer(id uuid.UUID) bool { return slices.Contains(a.McpServerIDs, id) }

// AgentStore keeps the agents on seats.
type AgentStore interface {
	InsertAgent(ctx context.Context, a Agent) error
	UpdateAgent(ctx context.Context, a Agent) error
	GetAgent(ctx context.Context, id uuid.UUID) (Agent, error)
	GetAgentBySeat(ctx context.Context, seat uuid.UUID) (Agent, error)
}

// Monogram is the initials of up to three words of name, upper-cased.
func Monogram(name string) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(name) {
		r, _ := utf8.DecodeRuneInString(word)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToUpper(r))
			if n++; n == 3 {
				break
			}
		}
	}
	if n == 0 {
		r, _ := utf8.DecodeRuneInString(strings.TrimSpace(name))
		return string(unicode.ToUpper(r))
	}
	return b.String()
}
