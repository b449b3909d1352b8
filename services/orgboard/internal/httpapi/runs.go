package httpapi

import (
	"context"
	"strings"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// PrepareAgentRun prepares a run.
func (s *Server) PrepareAgentRun(ctx context.Context, req orgboardserver.PrepareAgentRunRequestObject) (orgboardserver.PrepareAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.app.PrepareAgentRun(ctx, actor, req.Body.AgentId, req.Body.TaskId)
	if err != nil {
		return nil, err
	}
	return orgboardserver.PrepareAgentRun201JSONResponse(runOut(r)), nil
}

// GetAgentRun reads a run.
func (s *Server) GetAgentRun(ctx context.Context, req orgboardserver.GetAgentRunRequestObject) (orgboardserver.GetAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.app.GetAgentRun(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.GetAgentRun200JSONResponse(runOut(r)), nil
}

// ListAgentRuns lists the runs of a task.
func (s *Server) ListAgentRuns(ctx context.Context, req orgboardserver.ListAgentRunsRequestObject) (orgboardserver.ListAgentRunsResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := s.app.ListAgentRuns(ctx, actor, req.Params.TaskId)
	if err != nil {
		return nil, err
	}
	out := orgboard.AgentRunList{Data: make([]orgboard.AgentRun, len(rs))}
	for i, r := range rs {
		out.Data[i] = runOut(r)
	}
	return orgboardserver.ListAgentRuns200JSONResponse(out), nil
}

// ExecuteAgentRun executes a prepared run; 502 when no model connection answers. With
// Prefer: respond-async it answers 202 at once and a background job executes the run.
func (s *Server) ExecuteAgentRun(ctx context.Context, req orgboardserver.ExecuteAgentRunRequestObject) (orgboardserver.ExecuteAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.Params.Prefer != nil && prefers(*req.Params.Prefer, respondAsync) {
		r, err := s.app.RequestAgentRunExecution(ctx, actor, req.Id)
		if err != nil {
			return nil, err
		}
		applied := respondAsync
		return orgboardserver.ExecuteAgentRun202JSONResponse{Body: runOut(r),
			Headers: orgboardserver.ExecuteAgentRun202ResponseHeaders{PreferenceApplied: &applied}}, nil
	}
	r, err := s.app.ExecuteAgentRun(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ExecuteAgentRun200JSONResponse(runOut(r)), nil
}

// respondAsync is the RFC 7240 preference for an answer before the work is done.
const respondAsync = "respond-async"

// prefers reports whether the Prefer header value names the preference: a comma-separated
// list of preferences, each a token with an optional "=value" and ";"-separated parameters;
// names are case-insensitive (RFC 7240, section 2).
func prefers(header, name string) bool {
	for _, p := range strings.Split(header, ",") {
		token, _, _ := strings.Cut(p, ";")
		token, _, _ = strings.Cut(token, "=")
		if strings.EqualFold(strings.TrimSpace(token), name) {
			return true
		}
	}
	return false
}

// ApproveAgentRun approves a drafted run.
func (s *Server) ApproveAgentRun(ctx context.Context, req orgboardserver.ApproveAgentRunRequestObject) (orgboardserver.ApproveAgentRunResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.app.ApproveAgentRun(ctx, actor, req.Id, req.Body.FinalText)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ApproveAgentRun200JSONResponse(runOut(r)), nil
}

// CallAgentTool is the governed tool-call gateway; 502 when the server fails.
func (s *Server) CallAgentTool(ctx context.Context, req orgboardserver.CallAgentToolRequestObject) (orgboardserver.CallAgentToolResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := app.ToolCallInput{ServerID: req.Body.ServerId, Tool: req.Body.Tool, RunID: req.Body.RunId}
	if req.Body.Arguments != nil {
		in.Arguments = *req.Body.Arguments
	}
	call, err := s.app.CallAgentTool(ctx, actor, req.Id, in)
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
	return orgboardserver.CallAgentTool200JSONResponse(out), nil
}

// runStatuses maps a run's state to the wire's status and execution_status: a run a
// background job is executing still reads as prepared.
var runStatuses = map[domain.RunStatus]struct {
	status    orgboard.AgentRunStatus
	execution orgboard.AgentRunExecutionStatus
}{
	domain.RunPrepared:  {orgboard.AgentRunStatusPrepared, orgboard.AgentRunExecutionStatusNotStarted},
	domain.RunExecuting: {orgboard.AgentRunStatusPrepared, orgboard.AgentRunExecutionStatusExecuting},
	domain.RunDrafted:   {orgboard.AgentRunStatusDrafted, orgboard.AgentRunExecutionStatusDrafted},
	domain.RunApproved:  {orgboard.AgentRunStatusApproved, orgboard.AgentRunExecutionStatusDrafted},
	domain.RunFailed:    {orgboard.AgentRunStatusFailed, orgboard.AgentRunExecutionStatusFailed},
}

func runOut(r domain.AgentRun) orgboard.AgentRun {
	st := runStatuses[r.Status]
	out := orgboard.AgentRun{
		Id: r.ID, OrganizationId: r.OrganizationID, TeamId: r.TeamID, AgentId: r.AgentID, TaskId: r.TaskID,
		Status: st.status, ExecutionStatus: st.execution, Sections: make([]orgboard.PromptSection, len(r.Sections)), Prompt: r.Prompt,
		Trace: make([]orgboard.RunTraceStep, len(r.Trace)), Draft: r.Draft, Model: r.Model, ApiConfigId: r.ApiConfigID,
		FallbackUsed: r.FallbackUsed, FinalText: r.FinalText, EditDistance: r.EditDistance, CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, ExecutedAt: r.ExecutedAt, ApprovedBy: r.ApprovedBy, ApprovedAt: r.ApprovedAt,
		FailureReason: r.FailureReason,
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
