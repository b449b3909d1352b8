package httpapi

// The agents part (issue 8): model connections, agents on seats, agent profiles and their
// marketplace, tool servers, agent runs and the governed tool-call gateway.

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/domain/agentsmd"
)

// agentsAPI implements the operations about agents, agent profiles, model connections, tool
// servers and agent runs.
type agentsAPI struct{ app *app.App }

// newAgentsAPI is called by New. AGENTS.md uploads (text/markdown) reach UploadAgentProfile
// unread: pkg/httpx streams non-JSON bodies to the handler, which bounds and parses them.
func newAgentsAPI(a *app.App) agentsAPI { return agentsAPI{app: a} }

// ---- seats ----

// ConfigureSeatAgent configures the agent of a seat.
func (h agentsAPI) ConfigureSeatAgent(ctx context.Context, req orgboard.ConfigureSeatAgentRequestObject) (orgboard.ConfigureSeatAgentResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	in := app.AgentInput{Name: b.Name, Monogram: b.Monogram, ApiConfigID: b.ApiConfigId, FallbackApiConfigID: b.FallbackApiConfigId,
		SkillKeys: b.SkillKeys, Docs: b.Docs, Persona: b.Persona, McpServerIDs: b.McpServerIds, ProfileID: b.ProfileId}
	if b.Autonomy != nil {
		au := domain.Autonomy(*b.Autonomy)
		in.Autonomy = &au
	}
	ag, created, err := h.app.ConfigureSeatAgent(ctx, actor, req.Id, in)
	if err != nil {
		return nil, err
	}
	if created {
		return orgboard.ConfigureSeatAgent201JSONResponse(agentOut(ag)), nil
	}
	return orgboard.ConfigureSeatAgent200JSONResponse(agentOut(ag)), nil
}

// GetSeatAgent reads the agent of a seat.
func (h agentsAPI) GetSeatAgent(ctx context.Context, req orgboard.GetSeatAgentRequestObject) (orgboard.GetSeatAgentResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ag, err := h.app.GetSeatAgent(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.GetSeatAgent200JSONResponse(agentOut(ag)), nil
}

func agentOut(a domain.Agent) orgboard.Agent {
	return orgboard.Agent{
		Id: a.ID, OrganizationId: a.OrganizationID, TeamId: a.TeamID, SeatId: a.SeatID, Name: a.Name, Monogram: a.Monogram,
		Autonomy: orgboard.Autonomy(a.Autonomy), ApiConfigId: a.ApiConfigID, FallbackApiConfigId: a.FallbackApiConfigID,
		SkillKeys: a.SkillKeys, Docs: a.Docs, Persona: a.Persona, McpServerIds: a.McpServerIDs, ProfileId: a.ProfileID,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

// ---- model connections ----

// CreateApiConfig creates a model connection.
func (h agentsAPI) CreateApiConfig(ctx context.Context, req orgboard.CreateApiConfigRequestObject) (orgboard.CreateApiConfigResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	c, err := h.app.CreateApiConfig(ctx, actor, app.ApiConfigInput{OrganizationID: b.OrganizationId, Name: b.Name,
		Provider: string(b.Provider), Endpoint: b.Endpoint, Model: b.Model, APIKey: b.ApiKey})
	if err != nil {
		return nil, err
	}
	return orgboard.CreateApiConfig201JSONResponse(apiConfigOut(c)), nil
}

// ListApiConfigs lists model connections.
func (h agentsAPI) ListApiConfigs(ctx context.Context, req orgboard.ListApiConfigsRequestObject) (orgboard.ListApiConfigsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := h.app.ListApiConfigs(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	out := orgboard.ApiConfigList{Data: make([]orgboard.ApiConfig, len(cs))}
	for i, c := range cs {
		out.Data[i] = apiConfigOut(c)
	}
	return orgboard.ListApiConfigs200JSONResponse(out), nil
}

// DeleteApiConfig deletes a model connection.
func (h agentsAPI) DeleteApiConfig(ctx context.Context, req orgboard.DeleteApiConfigRequestObject) (orgboard.DeleteApiConfigResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.DeleteApiConfig(ctx, actor, req.Id); err != nil {
		return nil, err
	}
	return orgboard.DeleteApiConfig204Response{}, nil
}

// apiConfigOut never carries the key: the wire type has no field for it.
func apiConfigOut(c domain.ApiConfig) orgboard.ApiConfig {
	return orgboard.ApiConfig{Id: c.ID, OrganizationId: c.OrganizationID, Name: c.Name, Provider: orgboard.ModelProvider(c.Provider),
		Endpoint: c.Endpoint, Model: c.Model, KeyHint: c.KeyHint, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt}
}

// ---- tool servers ----

// CreateToolServer registers a tool server.
func (h agentsAPI) CreateToolServer(ctx context.Context, req orgboard.CreateToolServerRequestObject) (orgboard.CreateToolServerResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	in := app.ToolServerInput{OrganizationID: b.OrganizationId, Name: b.Name, URL: b.Url}
	if b.Headers != nil {
		in.Headers = *b.Headers
	}
	t, err := h.app.CreateToolServer(ctx, actor, in)
	if err != nil {
		return nil, err
	}
	return orgboard.CreateToolServer201JSONResponse(toolServerOut(t)), nil
}

// ListToolServers lists tool servers.
func (h agentsAPI) ListToolServers(ctx context.Context, req orgboard.ListToolServersRequestObject) (orgboard.ListToolServersResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := h.app.ListToolServers(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	out := orgboard.McpServerConfigList{Data: make([]orgboard.McpServerConfig, len(ts))}
	for i, t := range ts {
		out.Data[i] = toolServerOut(t)
	}
	return orgboard.ListToolServers200JSONResponse(out), nil
}

// DeleteToolServer deletes a tool server.
func (h agentsAPI) DeleteToolServer(ctx context.Context, req orgboard.DeleteToolServerRequestObject) (orgboard.DeleteToolServerResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.app.DeleteToolServer(ctx, actor, req.Id); err != nil {
		return nil, err
	}
	return orgboard.DeleteToolServer204Response{}, nil
}

// TestToolServerConnectivity tests a tool server; an unreachable one answers 200 with
// reachable false.
func (h agentsAPI) TestToolServerConnectivity(ctx context.Context, req orgboard.TestToolServerConnectivityRequestObject) (orgboard.TestToolServerConnectivityResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.app.TestToolServer(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.TestToolServerConnectivity200JSONResponse(orgboard.ToolServerTestResult{
		ServerId: r.ServerID, Reachable: r.Reachable, ProtocolVersion: nonEmpty(r.Info.ProtocolVersion),
		ServerName: nonEmpty(r.Info.ServerName), ServerVersion: nonEmpty(r.Info.ServerVersion),
		ToolCount: len(r.ToolNames), ToolNames: r.ToolNames, LatencyMs: r.LatencyMS, Error: r.Error, TestedAt: r.TestedAt,
	}), nil
}

// toolServerOut carries the header names only.
func toolServerOut(t domain.ToolServer) orgboard.McpServerConfig {
	return orgboard.McpServerConfig{Id: t.ID, OrganizationId: t.OrganizationID, Name: t.Name, Url: t.URL,
		HeaderNames: t.HeaderNames, CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt}
}

// ---- agent profiles ----

// UploadAgentProfile uploads an AGENTS.md.
func (h agentsAPI) UploadAgentProfile(ctx context.Context, req orgboard.UploadAgentProfileRequestObject) (orgboard.UploadAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	content, err := io.ReadAll(io.LimitReader(req.Body, agentsmd.MaxSize+1))
	var maxed *http.MaxBytesError
	switch {
	case errors.As(err, &maxed) || len(content) > agentsmd.MaxSize:
		return nil, errs.Ef(errs.TooLarge, "an AGENTS.md may have at most %d bytes", agentsmd.MaxSize)
	case err != nil:
		return nil, errs.Wrap(errs.Invalid, "the body could not be read", err)
	}
	p, err := h.app.UploadAgentProfile(ctx, actor, req.Params.OrganizationId, content)
	if err != nil {
		return nil, err
	}
	return orgboard.UploadAgentProfile201JSONResponse(profileOut(p)), nil
}

// ListAgentProfiles lists the resolvable winner of each key.
func (h agentsAPI) ListAgentProfiles(ctx context.Context, req orgboard.ListAgentProfilesRequestObject) (orgboard.ListAgentProfilesResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := h.app.ListAgentProfiles(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	return orgboard.ListAgentProfiles200JSONResponse(profileList(ps)), nil
}

// ListAgentProfileVersions lists the versions of a key.
func (h agentsAPI) ListAgentProfileVersions(ctx context.Context, req orgboard.ListAgentProfileVersionsRequestObject) (orgboard.ListAgentProfileVersionsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := h.app.ListAgentProfileVersions(ctx, actor, req.Params.OrganizationId, req.Key)
	if err != nil {
		return nil, err
	}
	return orgboard.ListAgentProfileVersions200JSONResponse(profileList(ps)), nil
}

// ListMarketplaceProfiles lists the marketplace.
func (h agentsAPI) ListMarketplaceProfiles(ctx context.Context, req orgboard.ListMarketplaceProfilesRequestObject) (orgboard.ListMarketplaceProfilesResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	page, size := 1, 20
	if req.Params.Page != nil {
		page = *req.Params.Page
	}
	if req.Params.PageSize != nil {
		size = *req.Params.PageSize
	}
	q := ""
	if req.Params.Q != nil {
		q = *req.Params.Q
	}
	res, err := h.app.ListMarketplace(ctx, actor, req.Params.OrganizationId, q, page, size)
	if err != nil {
		return nil, err
	}
	out := orgboard.MarketplacePage{Data: make([]orgboard.MarketplaceEntry, len(res.Entries)),
		Meta: orgboard.PaginationMeta{Page: page, PageSize: size, Total: int(res.Total), HasMore: int64(page*size) < res.Total}}
	for i, e := range res.Entries {
		p := e.Profile
		out.Data[i] = orgboard.MarketplaceEntry{Id: p.ID, OrganizationId: deref(p.OrganizationID), OrganizationName: e.OrganizationName,
			ProfileKey: p.Key, Version: p.Version, Name: p.Name, Description: p.Description, Skills: p.Skills, Tools: p.Tools,
			Autonomy: orgboard.Autonomy(p.Autonomy), PublishedAt: deref(p.PublishedAt), AlreadyInLibrary: e.AlreadyInLibrary}
	}
	return orgboard.ListMarketplaceProfiles200JSONResponse(out), nil
}

// GetAgentProfile reads a profile.
func (h agentsAPI) GetAgentProfile(ctx context.Context, req orgboard.GetAgentProfileRequestObject) (orgboard.GetAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := h.app.GetAgentProfile(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.GetAgentProfile200JSONResponse(profileOut(p)), nil
}

// PublishAgentProfile publishes a profile.
func (h agentsAPI) PublishAgentProfile(ctx context.Context, req orgboard.PublishAgentProfileRequestObject) (orgboard.PublishAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	var vis domain.ProfileVisibility
	if req.Body != nil && req.Body.Visibility != nil {
		vis = domain.ProfileVisibility(*req.Body.Visibility)
	}
	p, err := h.app.PublishAgentProfile(ctx, actor, req.Id, vis)
	if err != nil {
		return nil, err
	}
	return orgboard.PublishAgentProfile200JSONResponse(profileOut(p)), nil
}

// UnpublishAgentProfile unpublishes a profile.
func (h agentsAPI) UnpublishAgentProfile(ctx context.Context, req orgboard.UnpublishAgentProfileRequestObject) (orgboard.UnpublishAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := h.app.UnpublishAgentProfile(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.UnpublishAgentProfile200JSONResponse(profileOut(p)), nil
}

// ForkAgentProfile forks a profile.
func (h agentsAPI) ForkAgentProfile(ctx context.Context, req orgboard.ForkAgentProfileRequestObject) (orgboard.ForkAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := h.app.ForkAgentProfile(ctx, actor, req.Id, app.ForkInput{OrganizationID: req.Body.OrganizationId,
		Key: req.Body.ProfileKey, Version: req.Body.Version})
	if err != nil {
		return nil, err
	}
	return orgboard.ForkAgentProfile201JSONResponse(profileOut(p)), nil
}

// InstallAgentProfile installs a marketplace profile.
func (h agentsAPI) InstallAgentProfile(ctx context.Context, req orgboard.InstallAgentProfileRequestObject) (orgboard.InstallAgentProfileResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := h.app.InstallAgentProfile(ctx, actor, req.Id, req.Body.OrganizationId)
	if err != nil {
		return nil, err
	}
	return orgboard.InstallAgentProfile201JSONResponse(profileOut(p)), nil
}

func profileList(ps []domain.AgentProfile) orgboard.AgentProfileList {
	out := orgboard.AgentProfileList{Data: make([]orgboard.AgentProfile, len(ps))}
	for i, p := range ps {
		out.Data[i] = profileOut(p)
	}
	return out
}

func profileOut(p domain.AgentProfile) orgboard.AgentProfile {
	return orgboard.AgentProfile{
		Id: p.ID, OrganizationId: p.OrganizationID, ProfileKey: p.Key, Version: p.Version, Name: p.Name,
		Description: p.Description, Origin: orgboard.ProfileOrigin(p.Origin), Visibility: orgboard.ProfileVisibility(p.Visibility),
		Status: orgboard.ProfileStatus(p.Status), Skills: p.Skills, Tools: p.Tools, Autonomy: orgboard.Autonomy(p.Autonomy),
		Content: p.Content, Body: p.Body, ForkedFrom: p.ForkedFrom, InstalledFrom: p.InstalledFrom,
		PublishedAt: p.PublishedAt, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

// ---- agent runs ----

// PrepareAgentRun prepares a run.
func (h agentsAPI) PrepareAgentRun(ctx context.Context, req orgboard.PrepareAgentRunRequestObject) (orgboard.PrepareAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.app.PrepareAgentRun(ctx, actor, req.Body.AgentId, req.Body.TaskId)
	if err != nil {
		return nil, err
	}
	return orgboard.PrepareAgentRun201JSONResponse(runOut(r)), nil
}

// GetAgentRun reads a run.
func (h agentsAPI) GetAgentRun(ctx context.Context, req orgboard.GetAgentRunRequestObject) (orgboard.GetAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.app.GetAgentRun(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboard.GetAgentRun200JSONResponse(runOut(r)), nil
}

// ListAgentRuns lists the runs of a work item.
func (h agentsAPI) ListAgentRuns(ctx context.Context, req orgboard.ListAgentRunsRequestObject) (orgboard.ListAgentRunsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := h.app.ListAgentRuns(ctx, actor, req.Params.TaskId)
	if err != nil {
		return nil, err
	}
	out := orgboard.AgentRunList{Data: make([]orgboard.AgentRun, len(rs))}
	for i, r := range rs {
		out.Data[i] = runOut(r)
	}
	return orgboard.ListAgentRuns200JSONResponse(out), nil
}

// ExecuteAgentRun executes a prepared run; 502 when no model connection answers.
func (h agentsAPI) ExecuteAgentRun(ctx context.Context, req orgboard.ExecuteAgentRunRequestObject) (orgboard.ExecuteAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.app.ExecuteAgentRun(ctx, actor, req.Id)
	if u, ok := app.IsUpstream(err); ok {
		return orgboard.ExecuteAgentRun502ApplicationProblemPlusJSONResponse{BadGatewayApplicationProblemPlusJSONResponse: badGateway(u)}, nil
	}
	if err != nil {
		return nil, err
	}
	return orgboard.ExecuteAgentRun200JSONResponse(runOut(r)), nil
}

// ApproveAgentRun approves a drafted run.
func (h agentsAPI) ApproveAgentRun(ctx context.Context, req orgboard.ApproveAgentRunRequestObject) (orgboard.ApproveAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := h.app.ApproveAgentRun(ctx, actor, req.Id, req.Body.FinalText)
	if err != nil {
		return nil, err
	}
	return orgboard.ApproveAgentRun200JSONResponse(runOut(r)), nil
}

// CallAgentTool is the governed tool-call gateway; 502 when the server fails.
func (h agentsAPI) CallAgentTool(ctx context.Context, req orgboard.CallAgentToolRequestObject) (orgboard.CallAgentToolResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := app.ToolCallInput{ServerID: req.Body.ServerId, Tool: req.Body.Tool, RunID: req.Body.RunId}
	if req.Body.Arguments != nil {
		in.Arguments = *req.Body.Arguments
	}
	call, err := h.app.CallAgentTool(ctx, actor, req.Id, in)
	if u, ok := app.IsUpstream(err); ok {
		return orgboard.CallAgentTool502ApplicationProblemPlusJSONResponse{BadGatewayApplicationProblemPlusJSONResponse: badGateway(u)}, nil
	}
	if err != nil {
		return nil, err
	}
	out := orgboard.ToolCallResult{Id: call.ID, AgentId: call.AgentID, ServerId: call.ServerID, Tool: call.Tool,
		IsError: call.Result.IsError, Content: make([]orgboard.ToolContent, len(call.Result.Content)),
		ResultSize: call.Result.Size, LatencyMs: call.LatencyMS, CalledAt: call.CalledAt}
	if call.Result.Structured != nil {
		m := call.Result.Structured
		out.StructuredContent = &m
	}
	for i, c := range call.Result.Content {
		out.Content[i] = orgboard.ToolContent{Type: c.Type, Text: nonEmpty(c.Text), MimeType: nonEmpty(c.MimeType),
			Data: nonEmpty(c.Data), Uri: nonEmpty(c.URI)}
	}
	return orgboard.CallAgentTool200JSONResponse(out), nil
}

// badGateway renders an upstream failure as the spec's 502 problem.
func badGateway(u *app.UpstreamError) orgboard.BadGatewayApplicationProblemPlusJSONResponse {
	detail := u.Detail
	p := orgboard.BadGatewayApplicationProblemPlusJSONResponse{Type: httpx.ProblemTypeBase + "bad_gateway",
		Title: http.StatusText(http.StatusBadGateway), Status: http.StatusBadGateway, Detail: &detail}
	return p
}

func runOut(r domain.AgentRun) orgboard.AgentRun {
	out := orgboard.AgentRun{
		Id: r.ID, OrganizationId: r.OrganizationID, TeamId: r.TeamID, AgentId: r.AgentID, TaskId: r.TaskID,
		Status: orgboard.AgentRunStatus(r.Status), Sections: make([]orgboard.PromptSection, len(r.Sections)), Prompt: r.Prompt,
		Trace: make([]orgboard.RunTraceStep, len(r.Trace)), Draft: r.Draft, Model: r.Model, ApiConfigId: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, FinalText: r.FinalText, EditDistance: r.EditDistance, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, ExecutedAt: r.ExecutedAt, ApprovedBy: r.ApprovedBy, ApprovedAt: r.ApprovedAt,
	}
	for i, s := range r.Sections {
		out.Sections[i] = orgboard.PromptSection{Heading: orgboard.PromptSectionHeading(s.Heading), Content: s.Content}
	}
	for i, s := range r.Trace {
		out.Trace[i] = orgboard.RunTraceStep{At: s.At, Step: s.Step, Ok: s.OK, Detail: s.Detail, ServerId: s.ServerID}
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
