package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// process is the orgboard binary serving as a process of its own.
type process struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

// startProcess runs `orgboard serve` with env and waits until it is ready; its output is
// logged when the test fails.
func startProcess(t *testing.T, bin string, env []string) *process {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), env...), "HTTP_ADDR="+addr)
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, base: "http://" + addr, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			if err := <-p.done; err != nil {
				t.Logf("orgboard serve stopped: %v", err)
			}
		}
		if t.Failed() {
			mu.Lock()
			t.Logf("orgboard serve (pid %d) output:\n%s", cmd.Process.Pid, out.String())
			mu.Unlock()
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if resp, err := http.Get(p.base + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case err := <-p.done:
			t.Fatalf("orgboard serve exited before it was ready: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("orgboard serve was not ready within a minute")
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// stop signals the process and waits for it to exit.
func (p *process) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("orgboard serve did not exit on %v", sig)
		return nil
	}
}

func TestAnAsyncExecuteInterruptedByAKilledServiceCompletesOnceAfterTheRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the orgboard binary")
	}
	bin := filepath.Join(t.TempDir(), "orgboard")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/videotpl/platform/services/orgboard/cmd/orgboard").CombinedOutput(); err != nil {
		t.Fatalf("build the orgboard binary: %v\n%s", err, out)
	}
	_, dbURL := pgtest.NewDB(t, migrationSets()...)
	cfg := bustest.Config(t)
	issuer := authtest.New(t)

	// The model holds the first call until the service that made it has been killed, then
	// fails it; only the calls after the restart answer (and count as successful).
	var calls, successes atomic.Int32
	arrived, killed := make(chan struct{}, 1), make(chan struct{})
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			arrived <- struct{}{}
			<-killed
			http.Error(w, "the caller is gone", http.StatusServiceUnavailable)
			return
		}
		successes.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "m-1",
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "drafted once"}}}})
	}))
	var closeKilled sync.Once
	t.Cleanup(func() { closeKilled.Do(func() { close(killed) }); model.Close() })

	env := append([]string{
		"DATABASE_URL=" + dbURL, "MIGRATE_ON_START=false", "LOG_LEVEL=info", "METRICS_ADDR=127.0.0.1:0",
		"SEAL_KEYS=test:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "OUTBOUND_ALLOW_CIDRS=127.0.0.0/8",
		"AMQP_URL=" + cfg.AMQPURL, "BUS_SERVICE=" + cfg.Service, "EVENTS_EXCHANGE=" + cfg.EventsExchange,
		"DEAD_LETTER_EXCHANGE=" + cfg.DeadLetterExchange, "SHUTDOWN_DRAIN=5s",
		// A short lease: the restarted service takes the killed one's claim over within seconds.
		"RUN_JOB_LEASE=2s", "RUN_JOB_BACKOFF=50ms",
	}, issuer.Env()...)

	first := startProcess(t, bin, env)
	owner := authtest.Bearer(issuer.Token(t, authtest.Subject(uuid.New())))
	client := func(p *process) *orgboard.ClientWithResponses {
		c, err := orgboard.NewClientWithResponses(p.base, orgboard.WithRequestEditorFn(owner))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	run := preparedRun(t, client(first), model.URL)

	prefer := "respond-async"
	r, err := client(first).ExecuteAgentRunWithResponse(ctx(t), run, &orgboard.ExecuteAgentRunParams{Prefer: &prefer})
	if err != nil || r.JSON202 == nil {
		t.Fatalf("execute: %v %d %s", err, r.StatusCode(), r.Body)
	}
	select {
	case <-arrived:
	case <-time.After(time.Minute):
		t.Fatal("the job never called the model")
	}
	if err := first.stop(t, syscall.SIGKILL); err == nil {
		t.Fatal("the killed service exited cleanly")
	}
	closeKilled.Do(func() { close(killed) })

	second := startProcess(t, bin, env)
	c := client(second)
	deadline := time.Now().Add(30 * time.Second)
	var got orgboard.AgentRun
	for {
		g, err := c.GetAgentRunWithResponse(ctx(t), run)
		if err != nil || g.JSON200 == nil {
			t.Fatalf("get: %v %s", err, g.Body)
		}
		if got = *g.JSON200; got.ExecutionStatus != orgboard.AgentRunExecutionStatusExecuting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is still executing 30s after the restart: %+v", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got.Status != orgboard.AgentRunStatusDrafted || got.Draft == nil || *got.Draft != "drafted once" {
		t.Fatalf("run = %+v", got)
	}
	if n := successes.Load(); n != 1 {
		t.Fatalf("the model answered %d calls successfully, want 1", n)
	}
	action := "agent_run.executed"
	page, err := c.ListAuditEntriesWithResponse(ctx(t), &orgboard.ListAuditEntriesParams{OrganizationId: got.OrganizationId, Action: &action, TargetId: &run})
	if err != nil || page.JSON200 == nil || len(page.JSON200.Data) != 1 {
		t.Fatalf("executions audited: %v %s", err, page.Body)
	}
	if err := second.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: the service exited with %v", err)
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("the model was called %d times, want the killed call and one after the restart", n)
	}
}

// preparedRun builds, as one Owner, an organization with a team, an agent on a seat whose
// model connection is url, and a task, and prepares a run of the agent on the task.
func preparedRun(t *testing.T, c *orgboard.ClientWithResponses, url string) uuid.UUID {
	t.Helper()
	check := func(status int, err error, body []byte, want int) {
		t.Helper()
		if err != nil || status != want {
			t.Fatalf("status %d (%v), want %d: %s", status, err, want, body)
		}
	}
	org, err := c.CreateOrganizationWithResponse(ctx(t), nil, orgboard.OrganizationCreate{Name: "Acme"})
	check(org.StatusCode(), err, org.Body, 201)
	team, err := c.CreateTeamWithResponse(ctx(t), nil, orgboard.TeamCreate{OrganizationId: org.JSON201.Id, Name: "T"})
	check(team.StatusCode(), err, team.Body, 201)
	seat, err := c.CreateSeatWithResponse(ctx(t), nil, orgboard.SeatCreate{TeamId: team.JSON201.Id, Title: "Writer"})
	check(seat.StatusCode(), err, seat.Body, 201)
	conn, err := c.CreateApiConfigWithResponse(ctx(t), nil, orgboard.ApiConfigCreate{OrganizationId: org.JSON201.Id, Name: "Model",
		Provider: orgboard.ModelProvider("custom"), Model: "m-1", Endpoint: &url})
	check(conn.StatusCode(), err, conn.Body, 201)
	agent, err := c.ConfigureSeatAgentWithResponse(ctx(t), seat.JSON201.Id, nil, orgboard.AgentConfigure{Name: "Writer", ApiConfigId: conn.JSON201.Id})
	check(agent.StatusCode(), err, agent.Body, 201)
	task, err := c.CreateTaskWithResponse(ctx(t), nil, orgboard.WorkItemCreate{TeamId: team.JSON201.Id, Type: orgboard.WorkItemTypeTask, Title: "Write it"})
	check(task.StatusCode(), err, task.Body, 201)
	run, err := c.PrepareAgentRunWithResponse(ctx(t), nil, orgboard.AgentRunCreate{AgentId: agent.JSON201.Id, TaskId: task.JSON201.Id})
	check(run.StatusCode(), err, run.Body, 201)
	return run.JSON201.Id
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
