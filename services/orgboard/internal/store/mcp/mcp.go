// Package mcp holds the tool-server client: the Model Context Protocol over streamable HTTP.
package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// Client opens sessions with tool servers.
type Client struct {
	base    http.RoundTripper
	name    string
	version string
}

// New returns a Client whose connections go through base (give it the outbound policy's
// transport, so that every dial is checked).
func New(base http.RoundTripper, name, version string) *Client {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Client{base: base, name: name, version: version}
}

// Session is an open MCP session with one server.
type Session struct {
	cs   *sdk.ClientSession
	info domain.ToolServerInfo
}

// initializeVersion is the protocol version the client offers in initialize: the newest one
// that opens with the initialize handshake. The SDK would otherwise open with server/discover
// (2026-07-28), which servers of the handshake generation answer with an error or not at all.
// A server that speaks a newer version names it in its initialize result, and the session
// continues in that version.
const initializeVersion = "2025-11-25"

// Connect begins a session the way the protocol's handshake does: initialize, then
// notifications/initialized; tools/list and tools/call follow on the session. The server's
// authentication headers go with every request and never appear in an error. Close it.
func (c *Client) Connect(ctx context.Context, srv domain.ToolEndpoint) (*Session, error) {
	transport := &sdk.StreamableClientTransport{
		Endpoint: srv.URL,
		// The SDK may finish an exchange on a context of its own; the client's timeout makes sure
		// no request outlives the caller's deadline.
		HTTPClient: &http.Client{Transport: &headerTransport{base: c.base, headers: srv.Headers}, Timeout: requestLimit(ctx)},
		// A call needs no server-initiated messages; skipping the standalone GET stream keeps a
		// short session to its requests.
		DisableStandaloneSSE: true,
		// Unreachable is an answer here, not something to retry.
		MaxRetries: -1,
	}
	client := sdk.NewClient(&sdk.Implementation{Name: c.name, Version: c.version}, nil)
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: initializeVersion})
	if err != nil {
		return nil, describe(ctx, "connect", err, srv)
	}
	s := &Session{cs: cs}
	if r := cs.InitializeResult(); r != nil {
		s.info.ProtocolVersion = r.ProtocolVersion
		if r.ServerInfo != nil {
			s.info.ServerName, s.info.ServerVersion = r.ServerInfo.Name, r.ServerInfo.Version
		}
	}
	return s, nil
}

// defaultLimit bounds every HTTP request of a session when the caller gave no deadline.
const defaultLimit = 60 * time.Second

func requestLimit(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return defaultLimit
}

// Info is what the server said about itself.
func (s *Session) Info() domain.ToolServerInfo { return s.info }

// Close ends the session (a DELETE when the server gave a session id).
func (s *Session) Close() error { return s.cs.Close() }

// maxTools bounds a catalog read from one server.
const maxTools = 1000

// Tools lists every tool (following pagination).
func (s *Session) Tools(ctx context.Context) ([]domain.Tool, error) {
	var out []domain.Tool
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, describe(ctx, "tools/list", err, domain.ToolEndpoint{})
		}
		tool := domain.Tool{Name: t.Name, Title: t.Title, Description: t.Description}
		if t.Annotations != nil {
			tool.ReadOnly = t.Annotations.ReadOnlyHint
			if tool.Title == "" {
				tool.Title = t.Annotations.Title
			}
		}
		if t.InputSchema != nil {
			if raw, err := json.Marshal(t.InputSchema); err == nil {
				tool.InputSchema = raw
			}
		}
		out = append(out, tool)
		if len(out) >= maxTools {
			break
		}
	}
	return out, nil
}

// Call runs tools/call. A tool that reports an error is a result with IsError, not an error.
func (s *Session) Call(ctx context.Context, name string, args map[string]any) (domain.ToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return domain.ToolResult{}, describe(ctx, "tools/call", err, domain.ToolEndpoint{})
	}
	out := domain.ToolResult{IsError: res.IsError, Content: make([]domain.ToolContent, 0, len(res.Content))}
	for _, c := range res.Content {
		out.Content = append(out.Content, content(c))
	}
	if res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil {
				out.Structured = m
			}
		}
	}
	if raw, err := json.Marshal(res); err == nil {
		out.Size = int64(len(raw))
	}
	return out, nil
}

func content(c sdk.Content) domain.ToolContent {
	switch v := c.(type) {
	case *sdk.TextContent:
		return domain.ToolContent{Type: "text", Text: v.Text}
	case *sdk.ImageContent:
		return domain.ToolContent{Type: "image", MimeType: v.MIMEType, Data: base64.StdEncoding.EncodeToString(v.Data)}
	case *sdk.AudioContent:
		return domain.ToolContent{Type: "audio", MimeType: v.MIMEType, Data: base64.StdEncoding.EncodeToString(v.Data)}
	case *sdk.ResourceLink:
		return domain.ToolContent{Type: "resource_link", URI: v.URI, MimeType: v.MIMEType, Text: v.Name}
	case *sdk.EmbeddedResource:
		out := domain.ToolContent{Type: "resource"}
		if r := v.Resource; r != nil {
			out.URI, out.MimeType, out.Text = r.URI, r.MIMEType, r.Text
			if len(r.Blob) > 0 {
				out.Data = base64.StdEncoding.EncodeToString(r.Blob)
			}
		}
		return out
	}
	raw, _ := json.Marshal(c)
	var probe struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &probe)
	return domain.ToolContent{Type: probe.Type}
}

// Open begins a session with srv; the caller closes it.
func (c *Client) Open(ctx context.Context, srv domain.ToolEndpoint) (domain.ToolSession, error) {
	s, err := c.Connect(ctx, srv)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CheckHeader reports why a configured header cannot be sent ("" when it can).
func (c *Client) CheckHeader(name, value string) string { return CheckHeader(name, value) }

var _ domain.ToolClient = (*Client)(nil)

// Probe opens a session, lists the tools and closes it: the connectivity test and the discovery
// of a prepared run.
func (c *Client) Probe(ctx context.Context, srv domain.ToolEndpoint) (domain.ToolServerInfo, []domain.Tool, error) {
	s, err := c.Connect(ctx, srv)
	if err != nil {
		return domain.ToolServerInfo{}, nil, err
	}
	defer s.Close()
	tools, err := s.Tools(ctx)
	return s.Info(), tools, err
}

// Error is a failed exchange with a tool server.
type Error struct {
	Op     string
	Reason string
	err    error
}

func (e *Error) Error() string { return e.Op + ": " + e.Reason }

// Unwrap gives the cause (for errors.Is on context errors and the outbound policy).
func (e *Error) Unwrap() error { return e.err }

// describe turns an SDK or transport error into an Error whose text names no header value.
func describe(ctx context.Context, op string, err error, srv domain.ToolEndpoint) error {
	reason := err.Error()
	// The HTTP client's own time limit ends a request just before the caller's deadline does.
	var timeout interface{ Timeout() bool }
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &timeout) && timeout.Timeout()) {
		reason = "the tool server did not answer in time"
	}
	for _, v := range srv.Headers {
		if v != "" {
			reason = strings.ReplaceAll(reason, v, "[redacted]")
		}
	}
	return &Error{Op: op, Reason: reason, err: err}
}

// headerTransport adds the server's authentication headers to every request. The protocol's
// own headers are never overridden.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) == 0 {
		return h.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for k, v := range h.headers {
		if reserved(k) {
			continue
		}
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")

// reserved headers belong to HTTP or to the protocol and cannot be configured.
func reserved(name string) bool {
	switch textproto.CanonicalMIMEHeaderKey(name) {
	case "Host", "Content-Length", "Content-Type", "Accept", "Connection", "Transfer-Encoding",
		"Te", "Trailer", "Upgrade", "Last-Event-Id", "Cookie", "Proxy-Authorization":
		return true
	}
	return strings.HasPrefix(strings.ToLower(name), "mcp-")
}

// CheckHeader reports why a configured header cannot be used ("" when it can).
func CheckHeader(name, value string) string {
	switch {
	case !headerName.MatchString(name):
		return "is not a valid header name"
	case reserved(name):
		return "is set by the protocol and cannot be configured"
	case strings.ContainsAny(value, "\r\n\x00"):
		return "has a value with a line break"
	}
	return ""
}
