package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
)

// racers is how many clients each race test sends at once.
const racers = 20

// race runs f from racers goroutines released together and returns their statuses.
func race(t *testing.T, f func(i int) int) []int {
	t.Helper()
	statuses := make([]int, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			statuses[i] = f(i)
		}()
	}
	start.Done()
	done.Wait()
	return statuses
}

// countStatuses counts the statuses, and fails the test on any 5xx.
func countStatuses(t *testing.T, statuses []int) map[int]int {
	t.Helper()
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
		if s >= 500 || s == 0 {
			t.Errorf("a client got %d", s)
		}
	}
	return counts
}

// heldGateway is a chat-completions server that counts calls and holds each answer until
// release is closed (or a deadline passes), so that every racer is in flight at once.
func heldGateway(t *testing.T) (url string, calls *atomic.Int32, release chan struct{}) {
	t.Helper()
	calls, release = &atomic.Int32{}, make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "paid-model",
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "the draft"}}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL, calls, release
}

func TestConcurrentExecutesOfOneRunCallThePaidModelOnce(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	url, calls, release := heldGateway(t)
	conn := e.apiConfig(w.ownerA, w.orgA.Id, "Paid", "custom", url, primaryKey)
	agent := *must[*orgboard.ConfigureSeatAgentResponse](t, 201)(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
		Name: "Racer", ApiConfigId: conn.Id}, as(w.leadA))).JSON201
	run := *must[*orgboard.PrepareAgentRunResponse](t, 201)(c.PrepareAgentRunWithResponse(ctx, nil, orgboard.AgentRunCreate{AgentId: agent.Id, TaskId: w.taskA1.Id}, as(w.memberA))).JSON201

	var refused atomic.Int32
	statuses := race(t, func(int) int {
		r, err := c.ExecuteAgentRunWithResponse(ctx, run.Id, nil, as(w.memberA))
		if err != nil {
			t.Error(err)
			return 0
		}
		if r.StatusCode() == http.StatusConflict && refused.Add(1) == racers-1 {
			close(release) // every other execute was refused while the first one waits for the model
		}
		return r.StatusCode()
	})
	counts := countStatuses(t, statuses)
	if counts[200] != 1 || counts[409] != racers-1 {
		t.Fatalf("statuses %v, want one 200 and %d 409", counts, racers-1)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the model was called %d times", n)
	}
	got := must[*orgboard.GetAgentRunResponse](t, 200)(c.GetAgentRunWithResponse(ctx, run.Id, as(w.memberA))).JSON200
	if got.Status != orgboard.AgentRunStatusDrafted || got.Draft == nil || *got.Draft != "the draft" {
		t.Fatalf("run = %+v", got)
	}
	action := "agent_run.executed"
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(c.ListAuditEntriesWithResponse(ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: w.orgA.Id, Action: &action, TargetId: &run.Id}, as(w.ownerA))).JSON200
	if len(page.Data) != 1 {
		t.Fatalf("%d executions audited", len(page.Data))
	}
}

func TestConcurrentlyNamingTheSameLeadNamesItOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	statuses := race(t, func(int) int {
		r, err := c.SetTeamLeadWithResponse(ctx, w.teamA2.Id, w.memberA.user, as(w.ownerA))
		if err != nil {
			t.Error(err)
			return 0
		}
		return r.StatusCode()
	})
	if counts := countStatuses(t, statuses); counts[200] != racers {
		t.Fatalf("statuses %v, want %d times 200", counts, racers)
	}
	leads := must[*orgboard.ListTeamLeadsResponse](t, 200)(c.ListTeamLeadsWithResponse(ctx, w.teamA2.Id, as(w.ownerA))).JSON200.Data
	if len(leads) != 1 || leads[0].UserId != w.memberA.user {
		t.Fatalf("leads = %+v", leads)
	}
	action := "team.lead.assigned"
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(c.ListAuditEntriesWithResponse(ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: w.orgA.Id, Action: &action, TargetId: &w.memberA.user}, as(w.ownerA))).JSON200
	if len(page.Data) != 1 {
		t.Fatalf("%d assignments audited, want 1", len(page.Data))
	}
}

func TestAToolServerDeletedWhileAgentsAreBoundToItStaysBoundNowhere(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	conn := e.apiConfig(w.ownerA, w.orgA.Id, "Stub", "stub", "", "")
	server := must[*orgboard.CreateToolServerResponse](t, 201)(c.CreateToolServerWithResponse(ctx, nil, orgboard.McpServerConfigCreate{
		OrganizationId: w.orgA.Id, Name: "soon gone", Url: "https://tools.example.com/mcp"}, as(w.ownerA))).JSON201
	bound := []uuid.UUID{server.Id}
	// The agent is bound to the server before the race, so that the delete has a binding to
	// undo even when it commits before every configure of the race (which then answer 400).
	must[*orgboard.ConfigureSeatAgentResponse](t, 201)(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
		Name: "Binder", ApiConfigId: conn.Id, McpServerIds: &bound}, as(w.ownerA)))
	statuses := race(t, func(i int) int {
		if i == racers/2 {
			r, err := c.DeleteToolServerWithResponse(ctx, server.Id, as(w.ownerA))
			if err != nil {
				t.Error(err)
				return 0
			}
			if r.StatusCode() != 204 {
				t.Errorf("delete: %d %s", r.StatusCode(), r.Body)
			}
			return r.StatusCode()
		}
		r, err := c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
			Name: "Binder", ApiConfigId: conn.Id, McpServerIds: &bound}, as(w.ownerA))
		if err != nil {
			t.Error(err)
			return 0
		}
		// Before the delete the binding is configured; after it the server is no longer one of
		// the organization's.
		if s := r.StatusCode(); s != 200 && s != 201 && s != 400 {
			t.Errorf("configure: %d %s", s, r.Body)
		}
		return r.StatusCode()
	})
	countStatuses(t, statuses)
	got := must[*orgboard.GetSeatAgentResponse](t, 200)(c.GetSeatAgentWithResponse(ctx, w.seatA1.Id, as(w.ownerA))).JSON200
	if len(got.McpServerIds) != 0 {
		t.Fatalf("the agent is bound to the deleted server: %v", got.McpServerIds)
	}
}

func TestAnExecuteLeftUnfinishedHoldsTheRunUntilItsClaimGrowsStale(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	w := e.world()
	c, ctx := e.client, e.ctx
	conn := e.apiConfig(w.ownerA, w.orgA.Id, "Stub", "stub", "", "")
	agent := *must[*orgboard.ConfigureSeatAgentResponse](t, 201)(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
		Name: "Stubby", ApiConfigId: conn.Id}, as(w.leadA))).JSON201
	run := *must[*orgboard.PrepareAgentRunResponse](t, 201)(c.PrepareAgentRunWithResponse(ctx, nil, orgboard.AgentRunCreate{AgentId: agent.Id, TaskId: w.taskA1.Id}, as(w.memberA))).JSON201
	claim := func(age time.Duration) {
		t.Helper()
		if _, err := e.pool.Exec(ctx, "UPDATE agent_runs SET claimed_at = now() - $2::interval WHERE id = $1", run.Id, age.String()); err != nil {
			t.Fatal(err)
		}
	}

	claim(time.Second) // an execute in flight elsewhere
	must[*orgboard.ExecuteAgentRunResponse](t, 409)(c.ExecuteAgentRunWithResponse(ctx, run.Id, nil, as(w.memberA)))
	if got := must[*orgboard.GetAgentRunResponse](t, 200)(c.GetAgentRunWithResponse(ctx, run.Id, as(w.memberA))).JSON200; got.Status != orgboard.AgentRunStatusPrepared {
		t.Fatalf("a claimed run reads as %s, want prepared", got.Status)
	}
	claim(2 * time.Minute) // the harness's lease is a minute: that process stopped
	r := must[*orgboard.ExecuteAgentRunResponse](t, 200)(c.ExecuteAgentRunWithResponse(ctx, run.Id, nil, as(w.memberA))).JSON200
	if r.Status != orgboard.AgentRunStatusDrafted {
		t.Fatalf("run = %+v", r)
	}
}
