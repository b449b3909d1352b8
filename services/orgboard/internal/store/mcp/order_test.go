package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// methodLog is a tool server in front of an SDK server that records the JSON-RPC methods it
// receives, in order; refuse names methods it answers as unknown, as a server of the handshake
// generation answers a method it does not know.
type methodLog struct {
	mu      sync.Mutex
	methods []string
	refuse  map[string]bool
	next    http.Handler
}

func (m *methodLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	if msg.Method != "" {
		m.mu.Lock()
		m.methods = append(m.methods, msg.Method)
		m.mu.Unlock()
	}
	if m.refuse[msg.Method] {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
			"error": map[string]any{"code": -32601, "message": "Method not found"}})
		return
	}
	m.next.ServeHTTP(w, r)
}

func (m *methodLog) seen() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.methods)
}

func TestTheClientOpensWithInitializeThenInitializedThenTools(t *testing.T) {
	for name, stateless := range map[string]bool{"a sessionful server": false, "a session-less server": true} {
		t.Run(name, func(t *testing.T) {
			server := sdk.NewServer(&sdk.Implementation{Name: "recorder", Version: "1"}, nil)
			sdk.AddTool(server, &sdk.Tool{Name: "shout"}, func(_ context.Context, _ *sdk.CallToolRequest, in shoutIn) (*sdk.CallToolResult, shoutOut, error) {
				return nil, shoutOut{Shouted: in.Text}, nil
			})
			log := &methodLog{refuse: map[string]bool{"server/discover": true},
				next: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
					&sdk.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})}
			srv := httptest.NewServer(log)
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			s, err := New(nil, "orgboard-test", "0").Connect(ctx, domain.ToolEndpoint{URL: srv.URL})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if _, err := s.Tools(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Call(ctx, "shout", map[string]any{"text": "hi"}); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			want := []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}
			if got := log.seen(); !slices.Equal(got, want) {
				t.Fatalf("methods = %v, want %v", got, want)
			}
			if s.Info().ProtocolVersion != initializeVersion {
				t.Fatalf("protocol version %q, want the one offered, %q", s.Info().ProtocolVersion, initializeVersion)
			}
		})
	}
}
