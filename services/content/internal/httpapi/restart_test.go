package httpapi_test

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview/svgpreviewtest"
	"github.com/videotpl/platform/services/content/internal/store/storetest"
)

// service is the real content binary running as its own process.
type service struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	log  *bytes.Buffer
	done chan error
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "content")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/videotpl/platform/services/content/cmd/content").CombinedOutput()
	if err != nil {
		t.Fatalf("build the content binary: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// startService runs `content serve` on the harness's database, buckets and exchange, and
// waits until it is ready.
func startService(t *testing.T, bin string, ev *env, extraEnv ...string) *service {
	t.Helper()
	addr := freeAddr(t)
	s3 := storetest.S3Config(t)
	cfg := ev.app.Config()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(),
		"HTTP_ADDR="+addr, "DATABASE_URL="+ev.dbURL, "LOG_LEVEL=info",
		"AMQP_URL="+ev.bus.AMQPURL, "EVENTS_EXCHANGE="+ev.bus.EventsExchange, "BUS_SERVICE="+ev.bus.Service,
		"DEAD_LETTER_EXCHANGE="+ev.bus.DeadLetterExchange,
		"S3_ENDPOINT="+s3.Endpoint, "S3_REGION="+s3.Region, "S3_ACCESS_KEY="+s3.AccessKey, "S3_SECRET_KEY="+s3.SecretKey,
		"S3_BUCKET_TEMPLATES="+cfg.TemplatesBucket, "S3_BUCKET_MEDIA="+cfg.MediaBucket, "SHUTDOWN_DRAIN=5s",
		"METRICS_ADDR=127.0.0.1:0") // any free port: test processes run side by side
	cmd.Env = append(append(cmd.Env, ev.auth.Env()...), extraEnv...)
	s := &service{t: t, cmd: cmd, base: "http://" + addr, log: &bytes.Buffer{}, done: make(chan error, 1)}
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return s.log.Write(p) })
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			if err := <-s.done; err != nil {
				t.Logf("content serve stopped: %v", err)
			}
		}
		if t.Failed() {
			mu.Lock()
			t.Logf("content serve (pid %d) output:\n%s", cmd.Process.Pid, s.log.String())
			mu.Unlock()
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("content serve exited before it was ready: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("content serve was not ready within a minute")
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (s *service) client() *content.ClientWithResponses {
	c, err := content.NewClientWithResponses(s.base + "/v1")
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// stop signals the process and waits for it to exit.
func (s *service) stop(sig syscall.Signal) error {
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	select {
	case err := <-s.done:
		return err
	case <-time.After(time.Minute):
		s.t.Fatalf("content serve did not exit on %v", sig)
		return nil
	}
}

func TestAPreviewJobInterruptedByAKilledServiceCompletesAfterTheRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the content binary")
	}
	bin := buildBinary(t)
	ev := newEnv(t, alone())
	q := listenGenerated(t, ev.bus.AMQPURL, ev.bus.EventsExchange)

	// The vision model holds the first request until the test is done with it, so the job is
	// in progress -- its command delivered and not acknowledged -- when the service is killed.
	var (
		mu       sync.Mutex
		answer   bool
		arrived  = make(chan struct{}, 4)
		released = make(chan struct{})
	)
	model := gateway(t, func(w http.ResponseWriter) {
		mu.Lock()
		ok := answer
		mu.Unlock()
		if ok {
			modelAnswer(w)
			return
		}
		arrived <- struct{}{}
		<-released
	})
	t.Cleanup(func() { close(released) }) // before the gateway's Close, which waits for the held request
	aiEnv := []string{"SVG_AI_BASE_URL=" + model, "SVG_AI_API_KEY=test-key", "SVG_AI_MODEL=vision-test", "SVG_AI_TIMEOUT=5m"}

	first := startService(t, bin, ev, aiEnv...)
	pid := ev.draftProject("svg-restart")
	ct, body := streamedBody(append([]part{filePart("image", "scene.png", svgpreviewtest.PNG(t)),
		fieldPart("target_type", "project"), fieldPart("target_id", pid.String())}, keyParts()...)...)
	r, err := first.client().GenerateSvgPreviewWithBodyWithResponse(ctx(t), nil, ct, body, ev.admin)
	want(t, r, err, 202)
	id := r.JSON202.SvgPreviewId

	select {
	case <-arrived:
	case <-time.After(time.Minute):
		t.Fatal("the job never reached the vision model")
	}
	if err := first.stop(syscall.SIGKILL); err == nil {
		t.Fatal("the killed service exited cleanly")
	}
	if p := getPreview(t, ev, id); p.Status != content.SvgPreviewStatusGenerating {
		t.Fatalf("after the kill the preview is %s", p.Status)
	}

	mu.Lock()
	answer = true
	mu.Unlock()
	second := startService(t, bin, ev, aiEnv...)
	got := q.next(id)
	if got.Data.Status != events.SvgPreviewStatusReady || !got.Data.GeneratedByAI {
		t.Fatalf("event data %+v", got.Data)
	}
	g, err := second.client().GetSvgPreviewWithResponse(ctx(t), id, ev.admin)
	want(t, g, err, 200)
	if g.JSON200.Status != content.SvgPreviewStatusReady || g.JSON200.GeneratedByAi == nil || !*g.JSON200.GeneratedByAi {
		t.Fatalf("preview %+v", g.JSON200)
	}
	checkZones(t, *g.JSON200)
	if err := second.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: the service exited with %v", err)
	}
}
