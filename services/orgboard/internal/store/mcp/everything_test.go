package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp/mcptest"
)

// exchange is one HTTP request the client made.
type exchange struct {
	method     string // HTTP method
	rpc        string // JSON-RPC method, "" for a response or a GET/DELETE
	sessionID  string // Mcp-Session-Id sent
	authHeader string
	status     int
	mediaType  string
}

// recorder is a base transport that records what the client sends.
type recorder struct {
	mu  sync.Mutex
	log []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := exchange{method: req.Method, sessionID: req.Header.Get("Mcp-Session-Id"), authHeader: req.Header.Get("Authorization")}
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(b))
		var m struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		ex.rpc = m.Method
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		ex.status = resp.StatusCode
		ex.mediaType = resp.Header.Get("Content-Type")
	}
	r.mu.Lock()
	r.log = append(r.log, ex)
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.log...)
}

func TestClientAgainstServerEverything(t *testing.T) {
	url := mcptest.StartEverything(t)
	rec := &recorder{}
	c := New(rec, "orgboard-test", "0.0.0")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("initializes, lists tools and carries the session id", func(t *testing.T) {
		info, tools, err := c.Probe(ctx, domain.ToolEndpoint{URL: url, Headers: map[string]string{"Authorization": "Bearer tool-secret"}})
		if err != nil {
			t.Fatalf("Probe: %v", err)
		}
		if info.ServerName == "" || info.ProtocolVersion == "" {
			t.Fatalf("info = %+v", info)
		}
		var echo *domain.Tool
		for i := range tools {
			if tools[i].Name == "echo" {
				echo = &tools[i]
			}
		}
		if echo == nil || !echo.ReadOnly || echo.Description == "" || len(echo.InputSchema) == 0 {
			t.Fatalf("echo tool = %+v (of %d tools)", echo, len(tools))
		}

		var rpcs []string
		var session string
		sseSeen := false
		for _, ex := range rec.exchanges() {
			if ex.authHeader != "Bearer tool-secret" {
				t.Errorf("%s %s went without the configured header", ex.method, ex.rpc)
			}
			if ex.rpc == "" {
				continue
			}
			rpcs = append(rpcs, ex.rpc)
			switch ex.rpc {
			case "initialize":
				if ex.sessionID != "" {
					t.Errorf("initialize carried a session id")
				}
			case "notifications/initialized", "tools/list":
				if ex.sessionID == "" {
					t.Errorf("%s did not carry Mcp-Session-Id", ex.rpc)
				}
				if session != "" && ex.sessionID != session {
					t.Errorf("session id changed")
				}
				session = ex.sessionID
			}
			if ex.rpc == "tools/list" && ex.mediaType == "text/event-stream" {
				sseSeen = true
			}
		}
		want := []string{"initialize", "notifications/initialized", "tools/list"}
		if !containsInOrder(rpcs, want) {
			t.Fatalf("JSON-RPC sequence = %v, want %v in order", rpcs, want)
		}
		if !sseSeen {
			t.Errorf("server-everything answers with text/event-stream; no such reply was parsed")
		}
	})

	t.Run("calls the echo tool", func(t *testing.T) {
		s, err := c.Connect(ctx, domain.ToolEndpoint{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Call(ctx, "echo", map[string]any{"message": "hello from orgboard"})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != "Echo: hello from orgboard" {
			t.Fatalf("result = %+v", res)
		}
		if res.Size <= int64(len("Echo: hello from orgboard")) {
			t.Fatalf("size = %d", res.Size)
		}
	})

	t.Run("a tool error is a result, not a failure", func(t *testing.T) {
		s, err := c.Connect(ctx, domain.ToolEndpoint{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Call(ctx, "no-such-tool", nil)
		if err == nil && !res.IsError {
			t.Fatalf("calling an unknown tool: %+v", res)
		}
	})
}

func containsInOrder(have, want []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}
