package mcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp/mcptest"
)

type shoutIn struct {
	Text string `json:"text" jsonschema:"the text to shout"`
}

type shoutOut struct {
	Shouted string `json:"shouted"`
}

// goServer is a session-less MCP server of the Go SDK that answers application/json and
// requires a bearer header.
func goServer(t *testing.T, stateless bool) (*httptest.Server, *recorderHandler) {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "shouter", Version: "1.2.3"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "shout", Description: "Upper-cases text", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in shoutIn) (*sdk.CallToolResult, shoutOut, error) {
			return nil, shoutOut{Shouted: strings.ToUpper(in.Text)}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})
	rh := &recorderHandler{next: h}
	srv := httptest.NewServer(rh)
	t.Cleanup(srv.Close)
	return srv, rh
}

type recorderHandler struct {
	next      http.Handler
	sessionID []string
}

func (h *recorderHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Api-Key") != "k-123" {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	h.sessionID = append(h.sessionID, r.Header.Get("Mcp-Session-Id"))
	h.next.ServeHTTP(w, r)
}

func TestClientSpeaksToASessionLessServerAnsweringJSON(t *testing.T) {
	srv, seen := goServer(t, true)
	allow, _ := egress.ParseAllowList("127.0.0.0/8")
	c := New(allow.Transport(), "orgboard-test", "0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := c.Connect(ctx, domain.ToolEndpoint{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "k-123"}})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	if s.Info().ServerName != "shouter" || s.Info().ServerVersion != "1.2.3" {
		t.Fatalf("info = %+v", s.Info())
	}
	tools, err := s.Tools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "shout" || !tools[0].ReadOnly {
		t.Fatalf("tools = %+v, %v", tools, err)
	}
	res, err := s.Call(ctx, "shout", map[string]any{"text": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Structured["shouted"] != "HI" {
		t.Fatalf("result = %+v", res)
	}
	for _, id := range seen.sessionID {
		if id != "" {
			t.Fatalf("a session-less server got a session id %q", id)
		}
	}
}

func TestClientSpeaksToASessionfulGoServer(t *testing.T) {
	srv, _ := goServer(t, false)
	c := New(http.DefaultTransport, "orgboard-test", "0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, tools, err := c.Probe(ctx, domain.ToolEndpoint{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "k-123"}})
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools = %+v, %v", tools, err)
	}
}

func TestFailuresAreGracefulAndNameNoHeaderValue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, _ := goServer(t, true)

	t.Run("wrong credentials", func(t *testing.T) {
		_, _, err := New(nil, "t", "0").Probe(ctx, domain.ToolEndpoint{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "wrong-secret-value"}})
		var me *Error
		if !errors.As(err, &me) || strings.Contains(err.Error(), "wrong-secret-value") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nothing listens", func(t *testing.T) {
		url := "http://127.0.0.1:" + strconv.Itoa(mcptest.FreePort(t)) + "/mcp"
		start := time.Now()
		_, _, err := New(nil, "t", "0").Probe(ctx, domain.ToolEndpoint{URL: url})
		if err == nil || time.Since(start) > 5*time.Second {
			t.Fatalf("err = %v after %v", err, time.Since(start))
		}
	})
	t.Run("denied by the outbound policy", func(t *testing.T) {
		deny := egress.NewPolicy()
		_, _, err := New(deny.Transport(), "t", "0").Probe(ctx, domain.ToolEndpoint{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "k-123"}})
		if !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("err = %v, want an outbound denial", err)
		}
	})
	t.Run("a server that never answers hits the time limit", func(t *testing.T) {
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // so that the server notices the client going away
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		defer hang.Close()
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, _, err := New(nil, "t", "0").Probe(short, domain.ToolEndpoint{URL: hang.URL})
		if err == nil || !strings.Contains(err.Error(), "in time") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestCheckHeaderRefusesProtocolHeadersAndLineBreaks(t *testing.T) {
	cases := map[string]struct {
		name, value string
		ok          bool
	}{
		"authorization":   {"Authorization", "Bearer x", true},
		"custom":          {"X-Api-Key", "v", true},
		"session id":      {"Mcp-Session-Id", "x", false},
		"protocol header": {"mcp-protocol-version", "x", false},
		"content type":    {"Content-Type", "x", false},
		"host":            {"Host", "evil", false},
		"bad name":        {"Bad Header", "x", false},
		"line break":      {"X-A", "a\r\nX-B: b", false},
	}
	for name, c := range cases {
		if got := CheckHeader(c.name, c.value); (got == "") != c.ok {
			t.Errorf("%s: CheckHeader = %q", name, got)
		}
	}
}
