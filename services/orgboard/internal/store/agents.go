package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ---- model connections ----

// InsertApiConfig stores a model connection.
func (s *Store) InsertApiConfig(ctx context.Context, c domain.ApiConfig) error {
	return translate(s.q.InsertApiConfig(ctx, orgboarddb.InsertApiConfigParams{
		ID: c.ID, OrganizationID: c.OrganizationID, Name: c.Name, Provider: c.Provider, Endpoint: c.Endpoint,
		Model: c.Model, KeySealed: c.KeySealed, KeyHint: c.KeyHint, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt,
	}), "model connection")
}

// GetApiConfig loads a model connection.
func (s *Store) GetApiConfig(ctx context.Context, id uuid.UUID) (domain.ApiConfig, error) {
	r, err := s.q.GetApiConfig(ctx, id)
	if err != nil {
		return domain.ApiConfig{}, translate(err, "model connection")
	}
	return apiConfig(r), nil
}

// ListApiConfigs lists an organization's model connections by name.
func (s *Store) ListApiConfigs(ctx context.Context, org uuid.UUID) ([]domain.ApiConfig, error) {
	rows, err := s.q.ListApiConfigs(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]domain.ApiConfig, len(rows))
	for i, r := range rows {
		out[i] = apiConfig(r)
	}
	return out, nil
}

// DeleteApiConfig deletes a model connection; Conflict while an agent uses it.
func (s *Store) DeleteApiConfig(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteApiConfig(ctx, id)
	if err != nil {
		return translate(err, "model connection")
	}
	if n == 0 {
		return errs.E(errs.NotFound, "model connection not found")
	}
	return nil
}

func apiConfig(r orgboarddb.ApiConfig) domain.ApiConfig {
	return domain.ApiConfig{
		ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, Provider: r.Provider, Endpoint: r.Endpoint,
		Model: r.Model, KeySealed: r.KeySealed, KeyHint: r.KeyHint, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
	}
}

// ---- tool servers ----

// InsertToolServer stores a tool server.
func (s *Store) InsertToolServer(ctx context.Context, t domain.ToolServer) error {
	return translate(s.q.InsertToolServer(ctx, orgboarddb.InsertToolServerParams{
		ID: t.ID, OrganizationID: t.OrganizationID, Name: t.Name, Url: t.URL, HeaderNames: nonNil(t.HeaderNames),
		HeadersSealed: t.HeadersSealed, CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt,
	}), "tool server")
}

// GetToolServer loads a tool server.
func (s *Store) GetToolServer(ctx context.Context, id uuid.UUID) (domain.ToolServer, error) {
	r, err := s.q.GetToolServer(ctx, id)
	if err != nil {
		return domain.ToolServer{}, translate(err, "tool server")
	}
	return toolServer(r), nil
}

// ListToolServers lists an organization's tool servers by name.
func (s *Store) ListToolServers(ctx context.Context, org uuid.UUID) ([]domain.ToolServer, error) {
	rows, err := s.q.ListToolServers(ctx, org)
	if err != nil {
		return nil, err
	}
	return toolServers(rows), nil
}

// ListToolServersByID returns the servers among ids that belong to org, in the order of ids.
func (s *Store) ListToolServersByID(ctx context.Context, org uuid.UUID, ids []uuid.UUID) ([]domain.ToolServer, error) {
	if len(ids) == 0 {
		return []domain.ToolServer{}, nil
	}
	rows, err := s.q.ListToolServersByID(ctx, orgboarddb.ListToolServersByIDParams{Ids: ids, OrganizationID: org})
	if err != nil {
		return nil, err
	}
	return toolServers(rows), nil
}

// DeleteToolServer deletes a tool server and unbinds it from every agent of its organization.
func (s *Store) DeleteToolServer(ctx context.Context, t domain.ToolServer) error {
	if err := s.q.UnbindToolServer(ctx, orgboarddb.UnbindToolServerParams{ServerID: t.ID, OrganizationID: t.OrganizationID}); err != nil {
		return err
	}
	n, err := s.q.DeleteToolServer(ctx, t.ID)
	if err != nil {
		return translate(err, "tool server")
	}
	if n == 0 {
		return errs.E(errs.NotFound, "tool server not found")
	}
	return nil
}

func toolServers(rows []orgboarddb.ToolServer) []domain.ToolServer {
	out := make([]domain.ToolServer, len(rows))
	for i, r := range rows {
		out[i] = toolServer(r)
	}
	return out
}

func toolServer(r orgboarddb.ToolServer) domain.ToolServer {
	return domain.ToolServer{
		ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, URL: r.Url, HeaderNames: nonNil(r.HeaderNames),
		HeadersSealed: r.HeadersSealed, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
	}
}

// ---- agent profiles ----

// InsertAgentProfile stores a profile; Conflict when its library already holds the key and
// version.
func (s *Store) InsertAgentProfile(ctx context.Context, p domain.AgentProfile) error {
	return translate(s.q.InsertAgentProfile(ctx, orgboarddb.InsertAgentProfileParams{
		ID: p.ID, OrganizationID: p.OrganizationID, ProfileKey: p.Key, Version: p.Version, Name: p.Name,
		Description: p.Description, Origin: string(p.Origin), Visibility: string(p.Visibility), Status: string(p.Status),
		Skills: nonNil(p.Skills), Tools: nonNil(p.Tools), Autonomy: string(p.Autonomy), Content: p.Content, Body: p.Body,
		ForkedFrom: p.ForkedFrom, InstalledFrom: p.InstalledFrom, PublishedAt: p.PublishedAt,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}), "agent profile")
}

// InsertBuiltinProfile seeds a builtin profile; inserted is false when its key and version
// were already there (nothing is changed then).
func (s *Store) InsertBuiltinProfile(ctx context.Context, p domain.AgentProfile) (inserted bool, err error) {
	n, err := s.q.InsertBuiltinProfile(ctx, orgboarddb.InsertBuiltinProfileParams{
		ID: p.ID, ProfileKey: p.Key, Version: p.Version, Name: p.Name, Description: p.Description,
		Skills: nonNil(p.Skills), Tools: nonNil(p.Tools), Autonomy: string(p.Autonomy), Content: p.Content, Body: p.Body,
		PublishedAt: &p.CreatedAt,
	})
	return n == 1, err
}

// CountBuiltinProfiles counts the builtin profiles.
func (s *Store) CountBuiltinProfiles(ctx context.Context) (int64, error) {
	return s.q.CountBuiltinProfiles(ctx)
}

// GetAgentProfile loads a profile.
func (s *Store) GetAgentProfile(ctx context.Context, id uuid.UUID) (domain.AgentProfile, error) {
	r, err := s.q.GetAgentProfile(ctx, id)
	if err != nil {
		return domain.AgentProfile{}, translate(err, "agent profile")
	}
	return agentProfile(r), nil
}

// GetAgentProfileForUpdate loads and locks a profile.
func (s *Store) GetAgentProfileForUpdate(ctx context.Context, id uuid.UUID) (domain.AgentProfile, error) {
	r, err := s.q.GetAgentProfileForUpdate(ctx, id)
	if err != nil {
		return domain.AgentProfile{}, translate(err, "agent profile")
	}
	return agentProfile(r), nil
}

// ListLibraryProfiles lists an organization's profiles and the builtins.
func (s *Store) ListLibraryProfiles(ctx context.Context, org uuid.UUID) ([]domain.AgentProfile, error) {
	rows, err := s.q.ListLibraryProfiles(ctx, &org)
	if err != nil {
		return nil, err
	}
	return agentProfiles(rows), nil
}

// ListLibraryProfileVersions lists the profiles of one key in an organization's library
// (builtins included).
func (s *Store) ListLibraryProfileVersions(ctx context.Context, org uuid.UUID, key string) ([]domain.AgentProfile, error) {
	rows, err := s.q.ListLibraryProfileVersions(ctx, orgboarddb.ListLibraryProfileVersionsParams{OrganizationID: &org, ProfileKey: key})
	if err != nil {
		return nil, err
	}
	return agentProfiles(rows), nil
}

// SetAgentProfilePublication stores a profile's status, visibility and publication time.
func (s *Store) SetAgentProfilePublication(ctx context.Context, p domain.AgentProfile) error {
	return translate(s.q.SetAgentProfilePublication(ctx, orgboarddb.SetAgentProfilePublicationParams{
		ID: p.ID, Status: string(p.Status), Visibility: string(p.Visibility), PublishedAt: p.PublishedAt, UpdatedAt: p.UpdatedAt,
	}), "agent profile")
}

// ListMarketplace returns one page of Public profiles (newest published first) matching the
// ILIKE pattern (nil for all), seen by the browsing organization, and the total count.
func (s *Store) ListMarketplace(ctx context.Context, browser uuid.UUID, pattern *string, limit, offset int) ([]domain.MarketplaceEntry, int64, error) {
	rows, err := s.q.ListMarketplaceProfiles(ctx, orgboarddb.ListMarketplaceProfilesParams{
		Browser: &browser, Pattern: pattern, PageLimit: int32(limit), PageOffset: int32(offset),
	})
	if err != nil {
		return nil, 0, err
	}
	total, err := s.q.CountMarketplaceProfiles(ctx, pattern)
	if err != nil {
		return nil, 0, err
	}
	out := make([]domain.MarketplaceEntry, len(rows))
	for i, r := range rows {
		out[i] = domain.MarketplaceEntry{
			Profile: agentProfile(orgboarddb.AgentProfile{
				ID: r.ID, OrganizationID: r.OrganizationID, ProfileKey: r.ProfileKey, Version: r.Version, Name: r.Name,
				Description: r.Description, Origin: r.Origin, Visibility: r.Visibility, Status: r.Status, Skills: r.Skills,
				Tools: r.Tools, Autonomy: r.Autonomy, Content: r.Content, Body: r.Body, ForkedFrom: r.ForkedFrom,
				InstalledFrom: r.InstalledFrom, PublishedAt: r.PublishedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			}),
			OrganizationName: r.OrganizationName,
			AlreadyInLibrary: r.AlreadyInLibrary,
		}
	}
	return out, total, nil
}

func agentProfiles(rows []orgboarddb.AgentProfile) []domain.AgentProfile {
	out := make([]domain.AgentProfile, len(rows))
	for i, r := range rows {
		out[i] = agentProfile(r)
	}
	return out
}

func agentProfile(r orgboarddb.AgentProfile) domain.AgentProfile {
	return domain.AgentProfile{
		ID: r.ID, OrganizationID: r.OrganizationID, Key: r.ProfileKey, Version: r.Version, Name: r.Name,
		Description: r.Description, Origin: domain.ProfileOrigin(r.Origin), Visibility: domain.ProfileVisibility(r.Visibility),
		Status: domain.ProfileStatus(r.Status), Skills: nonNil(r.Skills), Tools: nonNil(r.Tools),
		Autonomy: domain.Autonomy(r.Autonomy), Content: r.Content, Body: r.Body, ForkedFrom: r.ForkedFrom,
		InstalledFrom: r.InstalledFrom, PublishedAt: r.PublishedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// ---- agents ----

// InsertAgent stores a new agent.
func (s *Store) InsertAgent(ctx context.Context, a domain.Agent) error {
	return translate(s.q.InsertAgent(ctx, orgboarddb.InsertAgentParams{
		ID: a.ID, OrganizationID: a.OrganizationID, TeamID: a.TeamID, SeatID: a.SeatID, Name: a.Name, Monogram: a.Monogram,
		Autonomy: string(a.Autonomy), ApiConfigID: a.ApiConfigID, FallbackApiConfigID: a.FallbackApiConfigID,
		SkillKeys: nonNil(a.SkillKeys), Docs: nonNil(a.Docs), Persona: a.Persona, McpServerIds: nonNilIDs(a.McpServerIDs),
		ProfileID: a.ProfileID, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}), "agent")
}

// UpdateAgent replaces an agent's configuration.
func (s *Store) UpdateAgent(ctx context.Context, a domain.Agent) error {
	return translate(s.q.UpdateAgent(ctx, orgboarddb.UpdateAgentParams{
		ID: a.ID, Name: a.Name, Monogram: a.Monogram, Autonomy: string(a.Autonomy), ApiConfigID: a.ApiConfigID,
		FallbackApiConfigID: a.FallbackApiConfigID, SkillKeys: nonNil(a.SkillKeys), Docs: nonNil(a.Docs),
		Persona: a.Persona, McpServerIds: nonNilIDs(a.McpServerIDs), ProfileID: a.ProfileID, UpdatedAt: a.UpdatedAt,
	}), "agent")
}

// GetAgent loads an agent.
func (s *Store) GetAgent(ctx context.Context, id uuid.UUID) (domain.Agent, error) {
	r, err := s.q.GetAgent(ctx, id)
	if err != nil {
		return domain.Agent{}, translate(err, "agent")
	}
	return agent(r), nil
}

// GetAgentBySeat loads the agent of a seat.
func (s *Store) GetAgentBySeat(ctx context.Context, seat uuid.UUID) (domain.Agent, error) {
	r, err := s.q.GetAgentBySeat(ctx, seat)
	if err != nil {
		return domain.Agent{}, translate(err, "agent")
	}
	return agent(r), nil
}

func agent(r orgboarddb.Agent) domain.Agent {
	return domain.Agent{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, SeatID: r.SeatID, Name: r.Name, Monogram: r.Monogram,
		Autonomy: domain.Autonomy(r.Autonomy), ApiConfigID: r.ApiConfigID, FallbackApiConfigID: r.FallbackApiConfigID,
		SkillKeys: nonNil(r.SkillKeys), Docs: nonNil(r.Docs), Persona: r.Persona, McpServerIDs: nonNilIDs(r.McpServerIds),
		ProfileID: r.ProfileID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// ---- agent runs ----

// InsertAgentRun stores a prepared run.
func (s *Store) InsertAgentRun(ctx context.Context, r domain.AgentRun) error {
	sections, trace, err := runJSON(r)
	if err != nil {
		return err
	}
	return translate(s.q.InsertAgentRun(ctx, orgboarddb.InsertAgentRunParams{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, AgentID: r.AgentID, TaskID: r.TaskID,
		Status: string(r.Status), Sections: sections, Prompt: r.Prompt, Trace: trace, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
	}), "agent run")
}

// GetAgentRun loads a run.
func (s *Store) GetAgentRun(ctx context.Context, id uuid.UUID) (domain.AgentRun, error) {
	r, err := s.q.GetAgentRun(ctx, id)
	if err != nil {
		return domain.AgentRun{}, translate(err, "agent run")
	}
	return agentRun(r)
}

// GetAgentRunForUpdate loads and locks a run.
func (s *Store) GetAgentRunForUpdate(ctx context.Context, id uuid.UUID) (domain.AgentRun, error) {
	r, err := s.q.GetAgentRunForUpdate(ctx, id)
	if err != nil {
		return domain.AgentRun{}, translate(err, "agent run")
	}
	return agentRun(r)
}

// ListAgentRunsOfTask lists a work item's runs, newest first.
func (s *Store) ListAgentRunsOfTask(ctx context.Context, task uuid.UUID) ([]domain.AgentRun, error) {
	rows, err := s.q.ListAgentRunsOfTask(ctx, task)
	if err != nil {
		return nil, err
	}
	out := make([]domain.AgentRun, len(rows))
	for i, r := range rows {
		if out[i], err = agentRun(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SetAgentRunExecution stores the outcome of executing a run.
func (s *Store) SetAgentRunExecution(ctx context.Context, r domain.AgentRun) error {
	_, trace, err := runJSON(r)
	if err != nil {
		return err
	}
	return translate(s.q.SetAgentRunExecution(ctx, orgboarddb.SetAgentRunExecutionParams{
		ID: r.ID, Status: string(r.Status), Draft: r.Draft, Model: r.Model, ApiConfigID: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, Trace: trace, ExecutedAt: r.ExecutedAt,
	}), "agent run")
}

// SetAgentRunApproval stores the approved text and its edit distance.
func (s *Store) SetAgentRunApproval(ctx context.Context, r domain.AgentRun) error {
	if r.ApprovedAt == nil {
		return fmt.Errorf("approval of run %s without a time", r.ID)
	}
	return translate(s.q.SetAgentRunApproval(ctx, orgboarddb.SetAgentRunApprovalParams{
		ID: r.ID, FinalText: r.FinalText, EditDistance: r.EditDistance, ApprovedBy: r.ApprovedBy, ApprovedAt: r.ApprovedAt,
	}), "agent run")
}

func runJSON(r domain.AgentRun) (sections, trace json.RawMessage, err error) {
	if r.Sections == nil {
		r.Sections = []domain.PromptSection{}
	}
	if r.Trace == nil {
		r.Trace = []domain.TraceStep{}
	}
	if sections, err = json.Marshal(r.Sections); err != nil {
		return nil, nil, err
	}
	trace, err = json.Marshal(r.Trace)
	return sections, trace, err
}

func agentRun(r orgboarddb.AgentRun) (domain.AgentRun, error) {
	out := domain.AgentRun{
		ID: r.ID, OrganizationID: r.OrganizationID, TeamID: r.TeamID, AgentID: r.AgentID, TaskID: r.TaskID,
		Status: domain.RunStatus(r.Status), Prompt: r.Prompt, Draft: r.Draft, Model: r.Model, ApiConfigID: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, FinalText: r.FinalText, EditDistance: r.EditDistance, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, ExecutedAt: r.ExecutedAt, ApprovedBy: r.ApprovedBy, ApprovedAt: r.ApprovedAt,
	}
	if err := json.Unmarshal(r.Sections, &out.Sections); err != nil {
		return out, fmt.Errorf("agent run %s sections: %w", r.ID, err)
	}
	if err := json.Unmarshal(r.Trace, &out.Trace); err != nil {
		return out, fmt.Errorf("agent run %s trace: %w", r.ID, err)
	}
	for i := range out.Trace {
		out.Trace[i].At = out.Trace[i].At.UTC()
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilIDs(s []uuid.UUID) []uuid.UUID {
	if s == nil {
		return []uuid.UUID{}
	}
	return s
}
