package httpapi_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp/mcptest"
)

func TestRunTracesAndUpstreamFailuresShowOnlyTheSchemeAndHostOfURLs(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	host := "http://127.0.0.1:" + strconv.Itoa(mcptest.FreePort(t)) // nothing listens there
	conn := e.apiConfig(w.ownerA, w.orgA.Id, "Leaky", "custom", host+"/gw/SECRET-PATH?key=SECRET-QUERY", "")
	tools := must[*orgboard.CreateToolServerResponse](t, 201)(c.CreateToolServerWithResponse(ctx, nil, orgboard.McpServerConfigCreate{
		OrganizationId: w.orgA.Id, Name: "leaky tools", Url: host + "/mcp/SECRET-PATH?token=SECRET-TOKEN"}, as(w.ownerA))).JSON201
	servers := []uuid.UUID{tools.Id}
	agent := *must[*orgboard.ConfigureSeatAgentResponse](t, 201)(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
		Name: "Leaky", ApiConfigId: conn.Id, McpServerIds: &servers}, as(w.leadA))).JSON201

	// The member runs the agent but may not list the connections or the tool servers.
	must[*orgboard.ListApiConfigsResponse](t, 403)(c.ListApiConfigsWithResponse(ctx, &orgboard.ListApiConfigsParams{OrganizationId: w.orgA.Id}, as(w.memberA)))
	must[*orgboard.ListToolServersResponse](t, 403)(c.ListToolServersWithResponse(ctx, &orgboard.ListToolServersParams{OrganizationId: w.orgA.Id}, as(w.memberA)))

	prepared := must[*orgboard.PrepareAgentRunResponse](t, 201)(c.PrepareAgentRunWithResponse(ctx, nil, orgboard.AgentRunCreate{AgentId: agent.Id, TaskId: w.taskA1.Id}, as(w.memberA)))
	failed := must[*orgboard.ExecuteAgentRunResponse](t, 502)(c.ExecuteAgentRunWithResponse(ctx, prepared.JSON201.Id, nil, as(w.memberA)))
	stored := must[*orgboard.GetAgentRunResponse](t, 200)(c.GetAgentRunWithResponse(ctx, prepared.JSON201.Id, as(w.memberA)))

	seen := map[string]string{"the prepared run": string(prepared.Body), "the 502 problem": string(failed.Body), "the stored run": string(stored.Body)}
	for what, body := range seen {
		if strings.Contains(body, "SECRET") {
			t.Errorf("%s shows a credential of a URL: %s", what, body)
		}
	}
	var skipped, modelFailed string
	for _, s := range stored.JSON200.Trace {
		switch s.Step {
		case "tool_server_skipped":
			skipped = s.Detail
		case "model_call":
			modelFailed = s.Detail
		}
	}
	if !strings.Contains(skipped, host) || !strings.Contains(modelFailed, host) || !strings.Contains(deref(failed.ApplicationproblemJSON502.Detail), host) {
		t.Fatalf("the failures no longer say where the call went:\n%s\n%s\n%s", skipped, modelFailed, failed.Body)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestATraceStoredWithAFullURLIsReadWithItsSchemeAndHostOnly(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	conn := e.apiConfig(w.ownerA, w.orgA.Id, "Stub", "stub", "", "")
	agent := *must[*orgboard.ConfigureSeatAgentResponse](t, 201)(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
		Name: "Stubby", ApiConfigId: conn.Id}, as(w.leadA))).JSON201
	run := *must[*orgboard.PrepareAgentRunResponse](t, 201)(c.PrepareAgentRunWithResponse(ctx, nil, orgboard.AgentRunCreate{AgentId: agent.Id, TaskId: w.taskA1.Id}, as(w.memberA))).JSON201
	// A trace written by a version that kept whole URLs.
	if _, err := e.pool.Exec(ctx, `UPDATE agent_runs SET trace = jsonb_set(trace, '{0,detail}', to_jsonb('tools: Post "https://tools.example.com/mcp?token=SECRET-TOKEN": refused'::text)) WHERE id = $1`, run.Id); err != nil {
		t.Fatal(err)
	}
	one := must[*orgboard.GetAgentRunResponse](t, 200)(c.GetAgentRunWithResponse(ctx, run.Id, as(w.memberA)))
	list := must[*orgboard.ListAgentRunsResponse](t, 200)(c.ListAgentRunsWithResponse(ctx, &orgboard.ListAgentRunsParams{TaskId: w.taskA1.Id}, as(w.memberA)))
	for what, r := range map[string]interface{ StatusCode() int }{"the run": one, "the list": list} {
		body := bodyOf(r)
		if strings.Contains(body, "SECRET") || !strings.Contains(body, "https://tools.example.com") {
			t.Errorf("%s: %s", what, body)
		}
	}
}
