package app

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/domain/editdistance"
)

// upstreamFailed is the failure (502) of a model connection or tool server that failed, was
// unreachable or exceeded its time limit. The gateways already keep keys and header values out
// of their messages; URLs are cut to their host, since a path or query may carry a credential.
func upstreamFailed(detail string, cause error) error {
	return errs.Wrap(errs.Upstream, egress.RedactURLs(detail), cause)
}

// traceDetail is the detail of a trace step as every reader of the run may see it: a failure
// quotes the URL it called, and a URL is cut to its scheme and host, since its user info, path
// or query may carry a credential and a run's readers need not be allowed to see the
// organization's tool servers and model connections.
func traceDetail(detail string) string { return egress.RedactURLs(detail) }

// PrepareAgentRun assembles the prompt of an agent for a task and stores the run as
// prepared (ManageWork at the item's team). Tool discovery on the agent's bound servers is best
// effort: a server that fails is recorded in the trace and skipped.
func (a *App) PrepareAgentRun(ctx context.Context, actor domain.Actor, agentID, taskID uuid.UUID) (domain.AgentRun, error) {
	s := a.store
	item, err := s.GetTask(ctx, taskID)
	if err != nil {
		return domain.AgentRun{}, err
	}
	if _, err := a.authorize(ctx, s, actor, item.Scope(), domain.ManageWork, "task"); err != nil {
		return domain.AgentRun{}, err
	}
	agent, err := s.GetAgent(ctx, agentID)
	if errs.KindOf(err) == errs.NotFound || (err == nil && agent.OrganizationID != item.OrganizationID) {
		return domain.AgentRun{}, errs.InvalidFields(errs.Field("body.agent_id", "is not an agent of the task's organization"))
	}
	if err != nil {
		return domain.AgentRun{}, err
	}
	run := domain.AgentRun{ID: a.newID(), OrganizationID: item.OrganizationID, TeamID: item.TeamID, AgentID: agent.ID,
		TaskID: item.ID, Status: domain.RunPrepared, CreatedBy: createdBy(actor), CreatedAt: a.now()}
	step := func(name string, ok bool, detail string, server *uuid.UUID) {
		run.Trace = append(run.Trace, domain.TraceStep{At: a.now(), Step: name, OK: ok, Detail: traceDetail(detail), ServerID: server})
	}

	identity, detail, err := a.productIdentity(ctx, s, item.TeamID)
	if err != nil {
		return domain.AgentRun{}, err
	}
	step("product_identity", true, detail, nil)
	if agent.Persona != "" {
		step("persona", true, fmt.Sprintf("operating guide of %d characters", utf8.RuneCountInString(agent.Persona)), nil)
	} else {
		step("persona", true, "the agent has no operating guide", nil)
	}

	servers, err := s.ListToolServersByID(ctx, agent.OrganizationID, agent.McpServerIDs)
	if err != nil {
		return domain.AgentRun{}, err
	}
	var discovered []domain.DiscoveredServer
	for _, srv := range servers {
		id := srv.ID
		tools, err := a.discover(ctx, srv)
		if err != nil {
			a.log.WarnContext(ctx, "tool discovery skipped a server", "run_id", run.ID, "tool_server_id", srv.ID, "error", err.Error())
			step("tool_server_skipped", false, fmt.Sprintf("%s: %v", srv.Name, err), &id)
			continue
		}
		step("tool_discovery", true, fmt.Sprintf("%s: %d tools", srv.Name, len(tools)), &id)
		discovered = append(discovered, domain.DiscoveredServer{Name: srv.Name, Tools: tools})
	}
	catalog := domain.ToolCatalog(discovered)
	run.Sections, run.Prompt = domain.AssemblePrompt(identity, agent.Persona, catalog, item)
	headings := make([]string, len(run.Sections))
	for i, sec := range run.Sections {
		headings[i] = sec.Heading
	}
	step("prompt_assembled", true, fmt.Sprintf("%d sections %v, %d characters", len(run.Sections), headings, utf8.RuneCountInString(run.Prompt)), nil)

	err = a.store.InTx(ctx, func(s domain.Store) error {
		if err := s.InsertAgentRun(ctx, run); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentRunPrepared, Scope: run.Scope(), TargetType: domain.TargetAgentRun, TargetID: run.ID,
			After: map[string]any{"agent_id": run.AgentID, "task_id": run.TaskID, "sections": headings,
				"tool_servers": len(servers), "tool_servers_skipped": len(servers) - len(discovered)},
		})
	})
	return run, err
}

// productIdentity is the current identity text of the team's product ("" when the team has no
// product or the identity was never set) and a trace detail.
func (a *App) productIdentity(ctx context.Context, s domain.Store, teamID uuid.UUID) (string, string, error) {
	team, err := s.GetTeam(ctx, teamID)
	if err != nil {
		return "", "", err
	}
	if team.ProductID == nil {
		return "", "the team has no product", nil
	}
	product, err := s.GetProduct(ctx, *team.ProductID)
	if err != nil {
		return "", "", err
	}
	if product.IdentityVersion == 0 {
		return "", fmt.Sprintf("product %s has no identity yet", product.Name), nil
	}
	id, err := s.GetProductIdentity(ctx, product.ID, product.IdentityVersion)
	if err != nil {
		return "", "", err
	}
	return id.Content, fmt.Sprintf("product %s identity version %d", product.Name, id.Version), nil
}

// discover lists the tools of one server within the discovery time limit.
func (a *App) discover(ctx context.Context, t domain.ToolServer) ([]domain.Tool, error) {
	srv, err := a.toolServer(t)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, a.limits.Discovery)
	defer cancel()
	_, tools, err := a.tools.Probe(dctx, srv)
	return tools, err
}

// run loads a run and checks p on its team.
func (a *App) run(ctx context.Context, s domain.Store, actor domain.Actor, id uuid.UUID, p domain.Permission) (domain.AgentRun, error) {
	r, err := s.GetAgentRun(ctx, id)
	if err != nil {
		return r, err
	}
	_, err = a.authorize(ctx, s, actor, r.Scope(), p, "agent run")
	return readable(r), err
}

// readable is a stored run as its readers see it: trace details are cut again on the way out,
// for runs whose trace was written before details were cut when recorded.
func readable(r domain.AgentRun) domain.AgentRun {
	for i := range r.Trace {
		r.Trace[i].Detail = traceDetail(r.Trace[i].Detail)
	}
	return r
}

// GetAgentRun reads a run (ViewBoard at its team).
func (a *App) GetAgentRun(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.AgentRun, error) {
	return a.run(ctx, a.store, actor, id, domain.ViewBoard)
}

// ListAgentRuns lists the runs of a task, newest first (ViewBoard at its team).
func (a *App) ListAgentRuns(ctx context.Context, actor domain.Actor, taskID uuid.UUID) ([]domain.AgentRun, error) {
	s := a.store
	item, err := s.GetTask(ctx, taskID)
	if err != nil {
		return nil, err
	}
	if _, err := a.authorize(ctx, s, actor, item.Scope(), domain.ViewBoard, "task"); err != nil {
		return nil, err
	}
	runs, err := s.ListAgentRunsOfTask(ctx, taskID)
	for i := range runs {
		runs[i] = readable(runs[i])
	}
	return runs, err
}

// ExecuteAgentRun sends a prepared run's prompt to the agent's model connection, then to its
// fallback when the first fails, and stores the answer as the draft (ManageWork). The run is
// claimed first, in a transaction of its own, so that concurrent executes of one run call the
// model once: the others get a Conflict. The model is called outside any transaction. When no
// connection answers the run becomes failed and the error is an upstream failure (errs.Upstream,
// a 502); any other failure gives up the claim and leaves the run prepared. No model-driven
// tool loop is run. The new state is published with the outcome.
func (a *App) ExecuteAgentRun(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.AgentRun, error) {
	s := a.store
	run, err := a.executable(ctx, actor, id)
	if err != nil {
		return run, err
	}
	claimedAt := a.now()
	claimed, err := s.ClaimAgentRun(ctx, run.ID, claimedAt, claimedAt.Add(-a.limits.RunClaim))
	if err != nil {
		return run, err
	}
	if !claimed {
		return run, errRunHeld
	}
	// The outcome is recorded, or the claim given up, even when the caller has gone: the model
	// may have been paid for.
	keep := context.WithoutCancel(ctx)
	recorded := false
	defer func() {
		if !recorded {
			if err := s.ReleaseAgentRun(keep, run.ID, claimedAt); err != nil {
				a.log.ErrorContext(ctx, "the claim of a run could not be given up", "run_id", run.ID, "error", err.Error())
			}
		}
	}()

	agent, err := s.GetAgent(ctx, run.AgentID)
	if err != nil {
		return run, err
	}
	call := a.callModel(ctx, &run, agent)
	outcome(&run, a.now(), call, "no model connection answered")
	err = a.store.InTx(keep, func(s domain.Store) error {
		if err := s.SetAgentRunExecution(keep, run, claimedAt); err != nil {
			return err
		}
		return a.recordOutcome(keep, s, actor, run, false)
	})
	if err != nil {
		return run, err
	}
	recorded = true
	if call.err != nil {
		return run, upstreamFailed("no model connection answered: "+call.err.Error(), call.err)
	}
	return run, nil
}

// errRunHeld answers an execute of a run another execute holds.
var errRunHeld = errs.E(errs.Conflict, "the run is being executed by another request, or was executed")

// executable loads a run for an execute (ManageWork): a Conflict unless it is prepared.
func (a *App) executable(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.AgentRun, error) {
	run, err := a.run(ctx, a.store, actor, id, domain.ManageWork)
	if err != nil {
		return run, err
	}
	if run.Status != domain.RunPrepared {
		return run, errs.Ef(errs.Conflict, "the run is %s; only a prepared run can be executed", run.Status)
	}
	return run, nil
}

// modelCall is the outcome of calling a run's model connections: the answer and the
// connection that gave it, or the last failure and whether calling again may succeed (one of
// the connections failed in a way that can pass).
type modelCall struct {
	answer    domain.ModelAnswer
	used      uuid.UUID
	err       error
	retryable bool
}

// callModel sends the run's prompt to the agent's model connection, then to its fallback when
// the first fails, recording each call in the run's trace.
func (a *App) callModel(ctx context.Context, run *domain.AgentRun, agent domain.Agent) modelCall {
	s := a.store
	messages := []domain.ChatMessage{{Role: "system", Content: domain.SystemMessage(agent)}, {Role: "user", Content: run.Prompt}}
	step := func(name string, ok bool, detail string) {
		run.Trace = append(run.Trace, domain.TraceStep{At: a.now(), Step: name, OK: ok, Detail: traceDetail(detail)})
	}
	attempt := func(configID uuid.UUID) (domain.ModelAnswer, error) {
		c, err := s.GetApiConfig(ctx, configID)
		if err != nil {
			return domain.ModelAnswer{}, err
		}
		conn, err := a.connection(c)
		if err != nil {
			return domain.ModelAnswer{}, err
		}
		res, err := a.models.Complete(ctx, conn, messages)
		if err != nil {
			step("model_call", false, fmt.Sprintf("%s (%s %s): %v", c.Name, c.Provider, c.Model, err))
			return res, err
		}
		step("model_call", true, fmt.Sprintf("%s (%s %s): %d characters", c.Name, c.Provider, res.Model, utf8.RuneCountInString(res.Text)))
		return res, nil
	}

	used := agent.ApiConfigID
	res, callErr := attempt(used)
	retryable := domain.RetryableModelError(callErr)
	if callErr != nil && agent.FallbackApiConfigID != nil {
		a.log.WarnContext(ctx, "model connection failed; trying the fallback", "run_id", run.ID, "api_config_id", used, "error", callErr.Error())
		step("model_fallback", true, "trying the fallback model connection")
		used = *agent.FallbackApiConfigID
		run.FallbackUsed = true
		res, callErr = attempt(used)
		retryable = retryable || domain.RetryableModelError(callErr)
	}
	if callErr != nil {
		a.log.WarnContext(ctx, "no model connection answered", "run_id", run.ID, "error", callErr.Error())
		return modelCall{used: used, err: callErr, retryable: retryable}
	}
	return modelCall{answer: res, used: used}
}

// outcome sets the run's outcome of executing at now: the draft of the call's answer, or
// failed when the call failed, with the reason (what happened, then the failure, cut like a
// trace detail).
func outcome(run *domain.AgentRun, now time.Time, call modelCall, what string) {
	run.ExecutedAt = &now
	if call.err != nil {
		run.Trace = append(run.Trace, domain.TraceStep{At: now, Step: "model_failed", OK: false, Detail: what})
		reason := domain.CutFailureReason(traceDetail(what + ": " + call.err.Error()))
		run.Status, run.FailureReason = domain.RunFailed, &reason
		return
	}
	res, used := call.answer, call.used
	run.Status, run.Draft, run.Model, run.ApiConfigID, run.FailureReason = domain.RunDrafted, &res.Text, &res.Model, &used, nil
}

// recordOutcome audits the outcome of executing run and publishes its new state, through s.
func (a *App) recordOutcome(ctx context.Context, s domain.Store, actor domain.Actor, run domain.AgentRun, async bool) error {
	after := map[string]any{"status": run.Status, "api_config_id": run.ApiConfigID, "model": run.Model,
		"fallback_used": run.FallbackUsed, "draft_chars": len([]rune(deref(run.Draft)))}
	before := domain.RunPrepared
	if async {
		before = domain.RunExecuting
		after["attempts"] = run.Attempts
	}
	if run.FailureReason != nil {
		after["failure_reason"] = *run.FailureReason
	}
	err := a.audit(ctx, s, actor, domain.Record{
		Action: domain.ActionAgentRunExecuted, Scope: run.Scope(), TargetType: domain.TargetAgentRun, TargetID: run.ID,
		Before: map[string]any{"status": before}, After: after,
	})
	if err != nil {
		return err
	}
	return a.publish(ctx, s, actor, runStateChanged(run, *run.ExecutedAt), *run.ExecutedAt)
}

// ApproveAgentRun records the approved text of a drafted run and the normalized edit distance
// between the draft and it (ManageWork). The distance is computed before the run is locked,
// within editdistance.MaxWork; beyond that bound it is a lower bound, as the audit entry says.
func (a *App) ApproveAgentRun(ctx context.Context, actor domain.Actor, id uuid.UUID, final string) (domain.AgentRun, error) {
	run, err := a.run(ctx, a.store, actor, id, domain.ManageWork)
	if err != nil {
		return run, err
	}
	if run.Status != domain.RunDrafted || run.Draft == nil {
		return run, errs.Ef(errs.Conflict, "the run is %s; only a drafted run can be approved", run.Status)
	}
	// A draft never changes once written, so the distance stays right for the locked row.
	dist := editdistance.Bounded(*run.Draft, final)
	d := dist.Normalized()
	err = a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if run, err = s.GetAgentRunForUpdate(ctx, id); err != nil {
			return err
		}
		if run.Status != domain.RunDrafted || run.Draft == nil {
			return errs.Ef(errs.Conflict, "the run is %s; only a drafted run can be approved", run.Status)
		}
		now := a.now()
		run.Status, run.FinalText, run.EditDistance, run.ApprovedBy, run.ApprovedAt = domain.RunApproved, &final, &d, actor.UserIDPtr(), &now
		if err := s.SetAgentRunApproval(ctx, run); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentRunApproved, Scope: run.Scope(), TargetType: domain.TargetAgentRun, TargetID: run.ID,
			Before: map[string]any{"status": domain.RunDrafted},
			After: map[string]any{"status": run.Status, "edit_distance": d, "edit_distance_exact": dist.Exact,
				"final_chars": utf8.RuneCountInString(final)},
		})
	})
	return readable(run), err
}

// ToolCallInput is a governed tool call.
type ToolCallInput struct {
	ServerID  uuid.UUID
	Tool      string
	Arguments map[string]any
	RunID     *uuid.UUID
}

// ToolCall is the outcome of a governed tool call.
type ToolCall struct {
	ID        uuid.UUID
	AgentID   uuid.UUID
	ServerID  uuid.UUID
	Tool      string
	Result    domain.ToolResult
	LatencyMS int64
	CalledAt  time.Time
}

// CallAgentTool is the governed gateway (ManageWork at the agent's team): it calls a tool of a
// server bound to the agent if the agent's autonomy allows it, within the call time limit, and
// audits the call with its arguments and the result size -- refused and failed calls too.
func (a *App) CallAgentTool(ctx context.Context, actor domain.Actor, agentID uuid.UUID, in ToolCallInput) (ToolCall, error) {
	s := a.store
	agent, err := s.GetAgent(ctx, agentID)
	if err != nil {
		return ToolCall{}, err
	}
	if _, err := a.authorize(ctx, s, actor, agent.Scope(), domain.ManageWork, "agent"); err != nil {
		return ToolCall{}, err
	}
	if !agent.BindsServer(in.ServerID) {
		return ToolCall{}, errs.InvalidFields(errs.Field("body.server_id", "is not a tool server bound to the agent"))
	}
	if in.RunID != nil {
		r, err := s.GetAgentRun(ctx, *in.RunID)
		if errs.KindOf(err) == errs.NotFound || (err == nil && r.AgentID != agent.ID) {
			return ToolCall{}, errs.InvalidFields(errs.Field("body.run_id", "is not a run of the agent"))
		}
		if err != nil {
			return ToolCall{}, err
		}
	}
	server, err := s.GetToolServer(ctx, in.ServerID)
	if err != nil {
		return ToolCall{}, err
	}
	call := ToolCall{ID: a.newID(), AgentID: agent.ID, ServerID: server.ID, Tool: in.Tool, CalledAt: a.now()}
	if in.Arguments == nil {
		in.Arguments = map[string]any{}
	}
	record := func(outcome string, extra map[string]any) error {
		after := map[string]any{"agent_id": agent.ID, "server_id": server.ID, "tool": in.Tool, "arguments": in.Arguments,
			"run_id": in.RunID, "autonomy": agent.Autonomy, "outcome": outcome}
		for k, v := range extra {
			after[k] = v
		}
		return a.store.InTx(ctx, func(s domain.Store) error {
			return a.audit(ctx, s, actor, domain.Record{Action: domain.ActionToolCalled, Scope: agent.Scope(),
				TargetType: domain.TargetToolCall, TargetID: call.ID, After: after})
		})
	}
	refuse := func(reason string) (ToolCall, error) {
		if err := record("refused", map[string]any{"reason": reason}); err != nil {
			return ToolCall{}, err
		}
		return ToolCall{}, errs.E(errs.Forbidden, reason)
	}
	if agent.Autonomy == domain.AutonomySuggest {
		return refuse("the agent's autonomy is suggest: it may call no tool")
	}
	fail := func(err error) (ToolCall, error) {
		a.log.WarnContext(ctx, "governed tool call failed", "tool_server_id", server.ID, "tool", in.Tool, "error", err.Error())
		if rerr := record("failed", map[string]any{"error": egress.RedactURLs(err.Error())}); rerr != nil {
			return ToolCall{}, rerr
		}
		return ToolCall{}, upstreamFailed("the tool server failed: "+err.Error(), err)
	}

	srv, err := a.toolServer(server)
	if err != nil {
		return fail(err)
	}
	cctx, cancel := context.WithTimeout(ctx, a.limits.ToolCall)
	defer cancel()
	start := time.Now()
	session, err := a.tools.Open(cctx, srv)
	if err != nil {
		return fail(err)
	}
	defer session.Close()
	tools, err := session.Tools(cctx)
	if err != nil {
		return fail(err)
	}
	var tool *domain.Tool
	for i := range tools {
		if tools[i].Name == in.Tool {
			tool = &tools[i]
		}
	}
	if tool == nil {
		return ToolCall{}, errs.InvalidFields(errs.Field("body.tool", "is not a tool of the server"))
	}
	if !agent.Autonomy.AllowsToolCall(tool.ReadOnly) {
		return refuse(fmt.Sprintf("the agent's autonomy is %s: it may call read-only tools only, and %s is not annotated read-only", agent.Autonomy, tool.Name))
	}
	res, err := session.Call(cctx, in.Tool, in.Arguments)
	if err != nil {
		return fail(err)
	}
	call.Result, call.LatencyMS = res, time.Since(start).Milliseconds()
	if err := record("called", map[string]any{"result_size": res.Size, "is_error": res.IsError, "latency_ms": call.LatencyMS}); err != nil {
		return ToolCall{}, err
	}
	return call, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
