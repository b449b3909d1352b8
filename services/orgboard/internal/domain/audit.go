package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Audit action names. invitation.created and member.joined belong to the identity module.
const (
	ActionOrganizationCreated    = "organization.created"
	ActionInvitationCreated      = "invitation.created"
	ActionMemberJoined           = "member.joined"
	ActionTeamCreated            = "team.created"
	ActionTeamLeadAssigned       = "team.lead.assigned"
	ActionTeamLeadRemoved        = "team.lead.removed"
	ActionDivisionCreated        = "division.created"
	ActionProductCreated         = "product.created"
	ActionProductIdentityUpdated = "product.identity.updated"
	ActionSeatCreated            = "seat.created"
	ActionTaskCreated            = "task.created"
	ActionTaskMoved              = "task.moved"
	ActionTaskAssigned           = "task.assigned"
)

// Audit action names of agents, their profiles, model connections, tool servers and runs.
const (
	ActionAgentConfigured         = "agent.configured"
	ActionApiConfigCreated        = "api_config.created"
	ActionApiConfigDeleted        = "api_config.deleted"
	ActionToolServerCreated       = "tool_server.created"
	ActionToolServerDeleted       = "tool_server.deleted"
	ActionToolServerTested        = "tool_server.tested"
	ActionAgentProfileUploaded    = "agent_profile.uploaded"
	ActionAgentProfilePublished   = "agent_profile.published"
	ActionAgentProfileUnpublished = "agent_profile.unpublished"
	ActionAgentProfileForked      = "agent_profile.forked"
	ActionAgentProfileInstalled   = "agent_profile.installed"
	ActionAgentRunPrepared        = "agent_run.prepared"
	ActionAgentRunExecuted        = "agent_run.executed"
	ActionAgentRunApproved        = "agent_run.approved"
	ActionToolCalled              = "tool.called"
)

// Audit target types.
const (
	TargetOrganization = "organization"
	TargetInvitation   = "invitation"
	TargetMember       = "member"
	TargetTeam         = "team"
	TargetDivision     = "division"
	TargetProduct      = "product"
	TargetSeat         = "seat"
	TargetTask         = "work_item" // audit entries are append-only: the value written from the start stays
	TargetAgent        = "agent"
	TargetApiConfig    = "api_config"
	TargetToolServer   = "tool_server"
	TargetAgentProfile = "agent_profile"
	TargetAgentRun     = "agent_run"
	TargetToolCall     = "tool_call"
)

// Audit scope types.
const (
	ScopeOrganization = "organization"
	ScopeTeam         = "team"
)

// AuditEntry is one append-only record of an action: who (actor), where (scope), on what
// (target), and the state before and after (JSON objects; nil when absent).
type AuditEntry struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	ActorID        *uuid.UUID
	ActorKind      ActorKind
	ActorName      *string
	Action         string
	ScopeType      string
	ScopeID        uuid.UUID
	TargetType     string
	TargetID       *uuid.UUID
	Before         map[string]any
	After          map[string]any
	At             time.Time
}

// Record describes an action to be audited; the writer fills in id, actor and time.
type Record struct {
	Action     string
	Scope      Scope
	TargetType string
	TargetID   uuid.UUID
	Before     map[string]any
	After      map[string]any
}

// NewAuditEntry makes the entry of rec performed by actor at at.
func NewAuditEntry(id uuid.UUID, actor Actor, rec Record, at time.Time) AuditEntry {
	e := AuditEntry{
		ID:             id,
		OrganizationID: rec.Scope.OrganizationID,
		ActorID:        actor.UserIDPtr(),
		ActorKind:      actor.Kind,
		Action:         rec.Action,
		ScopeType:      ScopeOrganization,
		ScopeID:        rec.Scope.OrganizationID,
		TargetType:     rec.TargetType,
		Before:         rec.Before,
		After:          rec.After,
		At:             at,
	}
	if rec.Scope.TeamID != nil {
		e.ScopeType, e.ScopeID = ScopeTeam, *rec.Scope.TeamID
	}
	if rec.TargetID != uuid.Nil {
		t := rec.TargetID
		e.TargetID = &t
	}
	if !actor.IsUser() && actor.Name != "" {
		n := actor.Name
		e.ActorName = &n
	}
	return e
}

// AuditFilter selects audit entries of one organization; Cursor continues a previous page.
type AuditFilter struct {
	OrganizationID uuid.UUID
	Action         *string
	ActorID        *uuid.UUID
	TargetID       *uuid.UUID
	Since, Until   *time.Time
	Cursor         *AuditCursor
	Limit          int
}

// AuditCursor is the position after the last entry of a page (entries are newest first).
type AuditCursor struct {
	At time.Time
	ID uuid.UUID
}

// AuditPage is one page of entries and the cursor of the next (nil when there is no more).
type AuditPage struct {
	Entries []AuditEntry
	Next    *AuditCursor
}

// AuditStore appends and lists audit entries.
type AuditStore interface {
	AppendAudit(ctx context.Context, e AuditEntry) error
	ListAudit(ctx context.Context, f AuditFilter) (AuditPage, error)
}
