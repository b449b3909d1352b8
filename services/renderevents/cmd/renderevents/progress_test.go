package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// message wraps a payload in an envelope of tenant at the given time, ready to publish.
func message(t *testing.T, tenant uuid.UUID, at time.Time, p events.Payload) sim.Message {
	t.Helper()
	env, err := events.NewEvent(tenant, p)
	if err != nil {
		t.Fatal(err)
	}
	env.EventTime = at
	body, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	m := sim.Message{Exchange: sim.Events, RoutingKey: env.EventType, EventID: env.EventID, EventType: env.EventType,
		TenantID: tenant, Body: body}
	if pp, ok := p.(events.RenderJobProgressV1Payload); ok {
		m.Exchange, m.RoutingKey = sim.Progress, "render.job.progress."+pp.RenderJobID.String()
	}
	return m
}

type frame struct {
	id    int64
	event string
	data  map[string]any
}

// sse reads server-sent event frames from a response body.
type sse struct {
	t    *testing.T
	resp *http.Response
	r    *bufio.Reader
}

func openStream(t *testing.T, h *harness, job uuid.UUID, tok, lastEventID string) *sse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.url+"/v1/render-jobs/"+job.String()+"/progress", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Cache-Control") != "no-cache" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	return &sse{t: t, resp: resp, r: bufio.NewReader(resp.Body)}
}

// next reads the next frame within timeout; ok is false at the end of the stream.
func (s *sse) next(timeout time.Duration) (frame, bool) {
	s.t.Helper()
	type result struct {
		f   frame
		ok  bool
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var f frame
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				if err == io.EOF && line == "" {
					ch <- result{ok: false}
					return
				}
				ch <- result{err: err}
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "":
				if f.event != "" {
					ch <- result{f: f, ok: true}
					return
				}
			case strings.HasPrefix(line, ":"): // comment
			case strings.HasPrefix(line, "id: "):
				f.id, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
			case strings.HasPrefix(line, "event: "):
				f.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &f.data); err != nil {
					ch <- result{err: err}
					return
				}
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("reading the stream: %v", r.err)
		}
		return r.f, r.ok
	case <-time.After(timeout):
		s.t.Fatalf("no frame within %s", timeout)
		return frame{}, false
	}
}

func testAnSSEClientReceivesProgressTicksLiveAndTheTerminalEventEndsItsStream(t *testing.T, h *harness) {
	tenant, job := uuid.New(), uuid.New()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	started := []sim.Message{
		message(t, tenant, t0, events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
			PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"}),
		message(t, tenant, t0.Add(time.Millisecond), events.RenderJobStartedV1Payload{RenderJobID: job, StartedAt: t0}),
	}
	h.publish(started)
	h.waitApplied(started...)
	tok := h.token(tenant)
	s := openStream(t, h, job, tok, "")
	first, ok := s.next(5 * time.Second)
	if !ok || first.event != "state" || first.data["state"] != "started" {
		t.Fatalf("first frame %+v, want the current state (started)", first)
	}

	var lastID int64
	for i := 1; i <= 5; i++ {
		sent := time.Now()
		h.publish([]sim.Message{message(t, tenant, t0.Add(time.Duration(i)*time.Second), events.RenderJobProgressV1Payload{
			RenderJobID: job, Step: events.StepRendering, Progress: i * 10, CurrentFrame: ptr(i * 30), TotalFrames: ptr(300)})})
		f, ok := s.next(5 * time.Second)
		if !ok || f.event != "progress" || f.data["progress"] != float64(i*10) || f.data["job_id"] != job.String() {
			t.Fatalf("tick %d: frame %+v", i, f)
		}
		if _, has := f.data["preview_b64"]; has {
			t.Error("preview_b64 is relayed")
		}
		if f.id <= lastID {
			t.Errorf("frame ids do not increase: %d after %d", f.id, lastID)
		}
		lastID = f.id
		if d := time.Since(sent); d > time.Second {
			t.Errorf("tick %d took %s to reach the client", i, d)
		}
	}

	h.publish([]sim.Message{message(t, tenant, t0.Add(10*time.Second), events.RenderJobCompletedV1Payload{
		RenderJobID: job, ExportID: uuid.New(), OutputURL: "s3://out/x.mp4", DurationSec: 12, SizeBytes: 1000})})
	f, ok := s.next(10 * time.Second)
	if !ok || f.event != "completed" || f.data["state"] != "completed" || f.id <= lastID {
		t.Fatalf("terminal frame %+v", f)
	}
	if _, ok := s.next(5 * time.Second); ok {
		t.Fatal("the stream goes on after the terminal frame")
	}

	// Reconnecting after the end: the current state, then the terminal frame, then the end.
	again := openStream(t, h, job, tok, strconv.FormatInt(f.id, 10))
	st, _ := again.next(5 * time.Second)
	term, _ := again.next(5 * time.Second)
	if st.event != "state" || term.event != "completed" || term.id <= f.id {
		t.Fatalf("reconnection frames %+v then %+v", st, term)
	}
	if _, ok := again.next(5 * time.Second); ok {
		t.Fatal("the reconnected stream goes on after the terminal frame")
	}
}

func testAStreamOfAJobOfAnotherTenantIsNotFound(t *testing.T, h *harness) {
	tenant, job := uuid.New(), uuid.New()
	queued := []sim.Message{message(t, tenant, time.Now().UTC(), events.RenderJobQueuedV1Payload{RenderJobID: job,
		SavedProjectID: uuid.New(), PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"})}
	h.publish(queued)
	h.waitApplied(queued...)
	r, err := h.client.StreamRenderJobProgress(context.Background(), job, nil, authtest.Bearer(h.token(uuid.New())))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d, want 404", r.StatusCode)
	}
}

func TestOnShutdownOpenStreamsEndAndTheServiceStopsPromptly(t *testing.T) {
	h := start(t)
	tenant, job := uuid.New(), uuid.New()
	queued := []sim.Message{message(t, tenant, time.Now().UTC(), events.RenderJobQueuedV1Payload{RenderJobID: job,
		SavedProjectID: uuid.New(), PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"})}
	h.publish(queued)
	h.waitApplied(queued...)
	s := openStream(t, h, job, h.token(tenant), "")
	if f, ok := s.next(5 * time.Second); !ok || f.event != "state" {
		t.Fatalf("first frame %+v", f)
	}
	began := time.Now()
	if err := h.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("stopping took %s", d)
	}
	if _, ok := s.next(5 * time.Second); ok {
		t.Fatal("the stream goes on after shutdown")
	}
}

func testAnInvalidProgressTickIsDroppedWithoutDeadLetterAndTheNextValidOneIsRelayed(t *testing.T, h *harness) {
	tenant, job := uuid.New(), uuid.New()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	started := []sim.Message{
		message(t, tenant, t0, events.RenderJobQueuedV1Payload{RenderJobID: job, SavedProjectID: uuid.New(),
			PriorityQueue: events.PriorityQueueVip, PriceType: events.PriceTypePlan, Region: "eu"}),
		message(t, tenant, t0.Add(time.Millisecond), events.RenderJobStartedV1Payload{RenderJobID: job, StartedAt: t0}),
	}
	h.publish(started)
	h.waitApplied(started...)
	s := openStream(t, h, job, h.token(tenant), "")
	if f, ok := s.next(5 * time.Second); !ok || f.event != "state" {
		t.Fatalf("first frame %+v", f)
	}
	deadLetters := h.cfg.BusConfig().DeadLetterQueue()
	before := bustest.Depth(t, deadLetters)

	invalid := message(t, tenant, t0.Add(time.Second), events.RenderJobProgressV1Payload{RenderJobID: job,
		Step: events.StepRendering, Progress: 10})
	invalid.Body = bytes.Replace(invalid.Body, []byte(`"progress":10`), []byte(`"progress":150`), 1)
	if !bytes.Contains(invalid.Body, []byte(`"progress":150`)) {
		t.Fatalf("the tick was not made invalid: %s", invalid.Body)
	}
	h.publish([]sim.Message{invalid, message(t, tenant, t0.Add(2*time.Second), events.RenderJobProgressV1Payload{
		RenderJobID: job, Step: events.StepRendering, Progress: 20})})
	f, ok := s.next(5 * time.Second)
	if !ok || f.event != "progress" || f.data["progress"] != float64(20) {
		t.Fatalf("frame %+v, want the valid tick (progress 20) and nothing of the invalid one", f)
	}
	if after := bustest.Depth(t, deadLetters); after != before {
		t.Fatalf("the dead-letter queue holds %d messages, %d before the invalid tick", after, before)
	}
}
