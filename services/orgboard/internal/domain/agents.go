package domain

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"
	"golang.org/x/mod/semver"
)

// Audit actions and target types of the agents part (issue 8).
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
	TargetAgent                   = "agent"
	TargetApiConfig               = "api_config"
	TargetToolServer              = "tool_server"
	TargetAgentProfile            = "agent_profile"
	TargetAgentRun                = "agent_run"
	TargetToolCall                = "tool_call"
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

// ApiConfig is a model connection. KeySealed is the sealed key (nil when none); it never
// leaves the service.
type ApiConfig struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	Provider       string
	Endpoint       *string
	Model          string
	KeySealed      []byte
	KeyHint        *string
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
}

// ToolServer is an MCP tool server of an organization. HeadersSealed is the sealed JSON object
// of its authentication headers (nil when none); only HeaderNames are ever shown.
type ToolServer struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	URL            string
	HeaderNames    []string
	HeadersSealed  []byte
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
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

// ProfileOrigin is Builtin, Authored or Installed.
type ProfileOrigin string

// ProfileVisibility is Private or Public.
type ProfileVisibility string

// ProfileStatus is Draft, Published or Unpublished.
type ProfileStatus string

// The origins, visibilities and statuses of agent profiles.
const (
	OriginBuiltin      ProfileOrigin     = "Builtin"
	OriginAuthored     ProfileOrigin     = "Authored"
	OriginInstalled    ProfileOrigin     = "Installed"
	VisibilityPrivate  ProfileVisibility = "Private"
	VisibilityPublic   ProfileVisibility = "Public"
	ProfileDraft       ProfileStatus     = "Draft"
	ProfilePublished   ProfileStatus     = "Published"
	ProfileUnpublished ProfileStatus     = "Unpublished"
)

// AgentProfile is a reusable agent definition in the AGENTS.md format. Invariant: Public
// implies Published.
type AgentProfile struct {
	ID             uuid.UUID
	OrganizationID *uuid.UUID // nil for a builtin
	Key            string
	Version        string
	Name           string
	Description    string
	Origin         ProfileOrigin
	Visibility     ProfileVisibility
	Status         ProfileStatus
	Skills         []string
	Tools          []string
	Autonomy       Autonomy
	Content        string
	Body           string
	ForkedFrom     *uuid.UUID
	InstalledFrom  *uuid.UUID
	PublishedAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// InLibraryOf reports whether the profile belongs to the organization's library (its own, or
// a builtin, which every library holds).
func (p AgentProfile) InLibraryOf(org uuid.UUID) bool {
	return p.OrganizationID == nil || *p.OrganizationID == org
}

// MarketplaceEntry is a Public profile seen by a browsing organization.
type MarketplaceEntry struct {
	Profile          AgentProfile
	OrganizationName string
	AlreadyInLibrary bool
}

// originRank orders origins for resolution: the organization's own Authored profile wins over
// an Installed one, which wins over a Builtin.
var originRank = map[ProfileOrigin]int{OriginAuthored: 0, OriginInstalled: 1, OriginBuiltin: 2}

// compareResolution orders profiles of one key, the winner first: by origin, then highest
// semantic version (pre-releases below their release), then newest.
func compareResolution(a, b AgentProfile) int {
	if c := cmp.Compare(originRank[a.Origin], originRank[b.Origin]); c != 0 {
		return c
	}
	if c := semver.Compare("v"+b.Version, "v"+a.Version); c != 0 {
		return c
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID.String(), b.ID.String())
}

// SortByResolution orders profiles by key, and within a key the winner first.
func SortByResolution(ps []AgentProfile) {
	slices.SortFunc(ps, func(a, b AgentProfile) int {
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return compareResolution(a, b)
	})
}

// ResolveProfiles returns the resolvable winner of each key, in key order.
func ResolveProfiles(ps []AgentProfile) []AgentProfile {
	sorted := slices.Clone(ps)
	SortByResolution(sorted)
	out := make([]AgentProfile, 0, len(sorted))
	for i, p := range sorted {
		if i == 0 || p.Key != sorted[i-1].Key {
			out = append(out, p)
		}
	}
	return out
}

// RunStatus is the state of an agent run: prepared -> drafted -> approved, or failed.
type RunStatus string

// The run statuses.
const (
	RunPrepared RunStatus = "prepared"
	RunDrafted  RunStatus = "drafted"
	RunApproved RunStatus = "approved"
	RunFailed   RunStatus = "failed"
)

// The prompt section headings, in assembly order.
const (
	HeadingProduct  = "# Product"
	HeadingGuide    = "# Operating guide"
	HeadingTools    = "# Tools (MCP)"
	HeadingWorkItem = "# Work item"
)

// PromptSection is one section of an assembled prompt.
type PromptSection struct {
	Heading string `json:"heading"`
	Content string `json:"content"`
}

// TraceStep is one step of a run's trace.
type TraceStep struct {
	At       time.Time  `json:"at"`
	Step     string     `json:"step"`
	OK       bool       `json:"ok"`
	Detail   string     `json:"detail"`
	ServerID *uuid.UUID `json:"server_id"`
}

// AgentRun is a run of an agent on a work item.
type AgentRun struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	TeamID         uuid.UUID
	AgentID        uuid.UUID
	TaskID         uuid.UUID
	Status         RunStatus
	Sections       []PromptSection
	Prompt         string
	Trace          []TraceStep
	Draft          *string
	Model          *string
	ApiConfigID    *uuid.UUID
	FallbackUsed   bool
	FinalText      *string
	EditDistance   *float64
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
	ExecutedAt     *time.Time
	ApprovedBy     *uuid.UUID
	ApprovedAt     *time.Time
}

// Scope is the run's team scope (the work item's team).
func (r AgentRun) Scope() Scope { return TeamScope(r.OrganizationID, r.TeamID) }
