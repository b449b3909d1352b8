package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/services/orgboard/internal/busapi"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// runJobPolicy is the harness's policy of run jobs: three attempts, pauses of milliseconds.
var runJobPolicy = domain.RunJobPolicy{Attempts: 3, Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Lease: 2 * time.Second}

// startRunJobs consumes the run commands of the suite's bus as the binary does (busHandlers):
// the service's queue bound to the run command, with retries and dead letters. The consumer
// reaches the broker directly, not through suite.proxy: an outage a test plays is the
// forwarder's, and the AMQP subscriber's reconnect is not what these tests are about.
func startRunJobs(tb testing.TB) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sub, err := bus.NewSubscriber(suite.bus, log, domain.RunJob)
	if err != nil {
		tb.Fatal(err)
	}
	dlq, err := bus.NewDeadLetterPublisher(suite.bus, log)
	if err != nil {
		tb.Fatal(err)
	}
	router, err := bus.NewRouter(suite.bus, dlq, nil, log)
	if err != nil {
		tb.Fatal(err)
	}
	bus.Consume(router, "orgboard-run-jobs", sub, busapi.RunJobs(suite.app.HandleRunJob))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- router.Run(ctx) }()
	<-router.Running()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			tb.Logf("run jobs router: %v", err)
		}
		_ = sub.Close()
		_ = dlq.Close()
	})
}

// scriptedGateway is a chat-completions server answering its calls in turn with the given
// statuses (the last one repeated); hold, when set, is waited for before each answer.
type scriptedGateway struct {
	*httptest.Server
	calls     atomic.Int32
	successes atomic.Int32
}

func newScriptedGateway(t *testing.T, hold <-chan struct{}, statuses ...int) *scriptedGateway {
	t.Helper()
	g := &scriptedGateway{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(g.calls.Add(1))
		if hold != nil {
			select {
			case <-hold:
			case <-time.After(20 * time.Second):
			}
		}
		status := statuses[min(n, len(statuses))-1]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = w.Write([]byte(`{"error":{"type":"overloaded"}}`))
			return
		}
		g.successes.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "async-model",
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "the async draft"}}}})
	}))
	t.Cleanup(g.Close)
	return g
}

// preparedRun is a prepared run of an agent whose model connection is url, in a fresh world.
func preparedRun(t *testing.T, e *agentsEnv, url string) (*world, orgboard.AgentRun) {
	t.Helper()
	w := e.world()
	c, ctx := e.client, e.ctx
	conn := e.apiConfig(w.ownerA, w.orgA.Id, "Async", "custom", url, primaryKey)
	agent := *must[*orgboard.ConfigureSeatAgentResponse](t, 201)(c.ConfigureSeatAgentWithResponse(ctx, w.seatA1.Id, nil, orgboard.AgentConfigure{
		Name: "Background", ApiConfigId: conn.Id}, as(w.leadA))).JSON201
	run := *must[*orgboard.PrepareAgentRunResponse](t, 201)(c.PrepareAgentRunWithResponse(ctx, nil, orgboard.AgentRunCreate{AgentId: agent.Id, TaskId: w.taskA1.Id}, as(w.memberA))).JSON201
	return w, run
}

// executeAsync executes the run with Prefer: respond-async and checks the 202.
func executeAsync(t *testing.T, e *agentsEnv, w *world, id uuid.UUID) orgboard.AgentRun {
	t.Helper()
	prefer := "respond-async"
	r := must[*orgboard.ExecuteAgentRunResponse](t, 202)(e.client.ExecuteAgentRunWithResponse(e.ctx, id, &orgboard.ExecuteAgentRunParams{Prefer: &prefer}, as(w.memberA)))
	if got := r.HTTPResponse.Header.Get("Preference-Applied"); got != "respond-async" {
		t.Fatalf("Preference-Applied = %q", got)
	}
	return *r.JSON202
}

// awaitRun polls the run until it leaves executing.
func awaitRun(t *testing.T, e *agentsEnv, w *world, id uuid.UUID) orgboard.AgentRun {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := *must[*orgboard.GetAgentRunResponse](t, 200)(e.client.GetAgentRunWithResponse(e.ctx, id, as(w.memberA))).JSON200
		if got.ExecutionStatus != orgboard.AgentRunExecutionStatusExecuting {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is still executing after 20s: %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stateChanges follows the run state events of the suite's bus.
func stateChanges(t *testing.T) <-chan amqp.Delivery {
	t.Helper()
	return bustest.BindEvents(t, suite.bus, "orgboard.agent_run.state_changed.v1")
}

// nextState is the status of the next state event of run on deliveries.
func nextState(t *testing.T, deliveries <-chan amqp.Delivery, run uuid.UUID) string {
	t.Helper()
	for {
		d := bustest.Receive(t, deliveries, 10*time.Second)
		var env struct {
			EventType string `json:"event_type"`
			Data      struct {
				AgentRunID    uuid.UUID `json:"agent_run_id"`
				Status        string    `json:"status"`
				FailureReason *string   `json:"failure_reason"`
			} `json:"data"`
		}
		if err := json.Unmarshal(d.Body, &env); err != nil {
			t.Fatalf("state event %s: %v", d.Body, err)
		}
		if env.Data.AgentRunID == run {
			if env.Data.Status == "failed" && (env.Data.FailureReason == nil || *env.Data.FailureReason == "") {
				t.Errorf("a failed state without its reason: %s", d.Body)
			}
			return env.Data.Status
		}
	}
}

func TestAnAsyncExecuteAnswers202AtOnceAndTheJobStoresTheDraft(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	hold := make(chan struct{})
	gw := newScriptedGateway(t, hold, http.StatusOK)
	w, run := preparedRun(t, e, gw.URL)
	states := stateChanges(t)

	// The model holds its answer until the 202 is in: the execute does not wait for it.
	accepted := executeAsync(t, e, w, run.Id)
	if accepted.ExecutionStatus != orgboard.AgentRunExecutionStatusExecuting || accepted.Status != orgboard.AgentRunStatusPrepared || accepted.Draft != nil {
		t.Fatalf("accepted run = %+v", accepted)
	}
	if got := nextState(t, states, run.Id); got != "executing" {
		t.Fatalf("first state event %s, want executing", got)
	}
	// Executing, the run refuses another execute of either form.
	must[*orgboard.ExecuteAgentRunResponse](t, 409)(e.client.ExecuteAgentRunWithResponse(e.ctx, run.Id, nil, as(w.memberA)))
	prefer := "respond-async"
	must[*orgboard.ExecuteAgentRunResponse](t, 409)(e.client.ExecuteAgentRunWithResponse(e.ctx, run.Id, &orgboard.ExecuteAgentRunParams{Prefer: &prefer}, as(w.memberA)))
	close(hold)

	got := awaitRun(t, e, w, run.Id)
	if got.Status != orgboard.AgentRunStatusDrafted || got.ExecutionStatus != orgboard.AgentRunExecutionStatusDrafted ||
		got.Draft == nil || *got.Draft != "the async draft" || got.FailureReason != nil {
		t.Fatalf("run = %+v", got)
	}
	if got := nextState(t, states, run.Id); got != "drafted" {
		t.Fatalf("second state event %s, want drafted", got)
	}
	if n := gw.calls.Load(); n != 1 {
		t.Fatalf("the model was called %d times", n)
	}
	action := "agent_run.executed"
	page := must[*orgboard.ListAuditEntriesResponse](t, 200)(e.client.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{
		OrganizationId: w.orgA.Id, Action: &action, TargetId: &run.Id}, as(w.ownerA))).JSON200
	if len(page.Data) != 1 || page.Data[0].ActorId == nil || *page.Data[0].ActorId != w.memberA.user {
		t.Fatalf("audit of the execution: %+v", page.Data)
	}
}

func TestAnAsyncExecuteCallsAgainAfterA5xxAndThenStoresTheDraft(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	gw := newScriptedGateway(t, nil, http.StatusServiceUnavailable, http.StatusOK)
	w, run := preparedRun(t, e, gw.URL)

	executeAsync(t, e, w, run.Id)
	got := awaitRun(t, e, w, run.Id)
	if got.Status != orgboard.AgentRunStatusDrafted || got.Draft == nil || *got.Draft != "the async draft" {
		t.Fatalf("run = %+v", got)
	}
	if n := gw.calls.Load(); n != 2 {
		t.Fatalf("the model was called %d times, want 2", n)
	}
	var steps []string
	for _, s := range got.Trace {
		steps = append(steps, s.Step)
	}
	if want := "model_call model_retry model_call"; !strings.Contains(strings.Join(steps, " "), want) {
		t.Fatalf("trace steps %v, want %q in them", steps, want)
	}
}

func TestAnAsyncExecuteWhoseCallsAllFailFailsTheRunWithTheReasonAndDeadLettersTheCommand(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	gw := newScriptedGateway(t, nil, http.StatusBadGateway)
	w, run := preparedRun(t, e, gw.URL)
	states := stateChanges(t)

	executeAsync(t, e, w, run.Id)
	got := awaitRun(t, e, w, run.Id)
	if got.Status != orgboard.AgentRunStatusFailed || got.ExecutionStatus != orgboard.AgentRunExecutionStatusFailed || got.FailureReason == nil ||
		!strings.Contains(*got.FailureReason, "in 3 attempts") || !strings.Contains(*got.FailureReason, "status 502") {
		t.Fatalf("run = %+v", got)
	}
	if n := gw.calls.Load(); n != int32(runJobPolicy.Attempts) {
		t.Fatalf("the model was called %d times, want %d", n, runJobPolicy.Attempts)
	}
	for _, want := range []string{"executing", "failed"} {
		if got := nextState(t, states, run.Id); got != want {
			t.Fatalf("state event %s, want %s", got, want)
		}
	}
	letter := deadLetterOf(t, run.Id)
	if reason, _ := letter.Headers[bus.MetaDeadLetterReason].(string); !strings.Contains(reason, "in 3 attempts") {
		t.Fatalf("dead letter reason %q", reason)
	}
	if permanent, _ := letter.Headers[bus.MetaDeadLetterPermanent].(string); permanent != "true" {
		t.Fatalf("dead letter permanent = %q, want true", permanent)
	}
}

func TestAnAsyncExecuteRefusedByTheModelFailsAtOnce(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	gw := newScriptedGateway(t, nil, http.StatusUnauthorized)
	w, run := preparedRun(t, e, gw.URL)

	executeAsync(t, e, w, run.Id)
	got := awaitRun(t, e, w, run.Id)
	if got.Status != orgboard.AgentRunStatusFailed || got.FailureReason == nil || !strings.Contains(*got.FailureReason, "status 401") {
		t.Fatalf("run = %+v", got)
	}
	if n := gw.calls.Load(); n != 1 {
		t.Fatalf("a refusal was called again: %d calls", n)
	}
}

func TestOtherPreferencesLeaveTheExecuteSynchronous(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	gw := newScriptedGateway(t, nil, http.StatusOK)
	w, run := preparedRun(t, e, gw.URL)
	prefer := "return=minimal, wait=10"
	r := must[*orgboard.ExecuteAgentRunResponse](t, 200)(e.client.ExecuteAgentRunWithResponse(e.ctx, run.Id, &orgboard.ExecuteAgentRunParams{Prefer: &prefer}, as(w.memberA)))
	if r.JSON200.Status != orgboard.AgentRunStatusDrafted || r.JSON200.ExecutionStatus != orgboard.AgentRunExecutionStatusDrafted ||
		r.HTTPResponse.Header.Get("Preference-Applied") != "" {
		t.Fatalf("status %s/%s, Preference-Applied %q", r.JSON200.Status, r.JSON200.ExecutionStatus, r.HTTPResponse.Header.Get("Preference-Applied"))
	}
}

func TestASynchronousExecuteThatFailsSaysWhyOnTheRun(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	gw := newScriptedGateway(t, nil, http.StatusInternalServerError)
	w, run := preparedRun(t, e, gw.URL)
	if got := run.ExecutionStatus; got != orgboard.AgentRunExecutionStatusNotStarted {
		t.Fatalf("a prepared run's execution_status is %s", got)
	}
	must[*orgboard.ExecuteAgentRunResponse](t, 502)(e.client.ExecuteAgentRunWithResponse(e.ctx, run.Id, nil, as(w.memberA)))
	got := must[*orgboard.GetAgentRunResponse](t, 200)(e.client.GetAgentRunWithResponse(e.ctx, run.Id, as(w.memberA))).JSON200
	if got.Status != orgboard.AgentRunStatusFailed || got.ExecutionStatus != orgboard.AgentRunExecutionStatusFailed ||
		got.FailureReason == nil || !strings.Contains(*got.FailureReason, "status 500") {
		t.Fatalf("run = %+v", got)
	}
	if n := gw.calls.Load(); n != 1 {
		t.Fatalf("a synchronous execute called the model %d times", n)
	}
}

func TestADuplicateDeliveryOfARunJobWaitsForTheHolderAndNeverCallsTheModel(t *testing.T) {
	t.Parallel()
	e := newAgentsEnv(t)
	hold := make(chan struct{})
	gw := newScriptedGateway(t, hold, http.StatusOK)
	w, run := preparedRun(t, e, gw.URL)
	executeAsync(t, e, w, run.Id)
	job := domain.NewRunJobData(run.Id, domain.UserActor(w.memberA.user))

	// Two more deliveries of the same command, besides the one on the bus.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() { errs <- suite.app.HandleRunJob(e.ctx, job) })
	}
	deadline := time.Now().Add(10 * time.Second)
	for gw.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(hold) // every call is held until now: a duplicate that called the model is counted below
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a duplicate delivery failed: %v", err)
		}
	}
	if got := awaitRun(t, e, w, run.Id); got.Status != orgboard.AgentRunStatusDrafted {
		t.Fatalf("run = %+v", got)
	}
	if n := gw.calls.Load(); n != 1 {
		t.Fatalf("the model was called %d times", n)
	}
}

// deadLetterOf reads the suite's dead-letter queue until the command of run is there.
func deadLetterOf(t *testing.T, run uuid.UUID) amqp.Delivery {
	t.Helper()
	ch := bustest.Channel(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, ok, err := ch.Get(suite.bus.DeadLetterQueue(), false)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if strings.Contains(string(d.Body), run.String()) {
				_ = d.Ack(false)
				return d
			}
			_ = d.Nack(false, true)
		}
		if time.Now().After(deadline) {
			t.Fatal(errors.New("no dead letter of the run within 10s"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
