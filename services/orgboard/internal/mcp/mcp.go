// Package mcp is the tool-server client: it speaks the Model Context Protocol over streamable
// HTTP through the official Go SDK (github.com/modelcontextprotocol/go-sdk/mcp). The SDK performs
// initialize, notifications/initialized, then tools/list or tools/call, carries the
// Mcp-Session-Id the server gives, and reads answers sent as application/json or as
// text/event-stream. It first offers the newest, session-less protocol (server/discover) and
// falls back to the initialize handshake when the server does not speak it, so both kinds of
// server work. A tool server's authentication headers are added by a RoundTripper and never
// appear in errors or logs of this package.
package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a tool server to talk to: its streamable HTTP endpoint and the headers (opened
// secrets) to send with every request.
type Server struct {
	URL     string
	Headers map[string]string
}

// Info is what the server said about itself when the session began.
type Info struct {
	ProtocolVersion string
	ServerName      string
	ServerVersion   string
}

// Tool is a tool the server offers.
type Tool struct {
	Name        string
	Title       string
	Description string
	// ReadOnly is the server's readOnlyHint annotation.
	ReadOnly    bool
	InputSchema json.RawMessage
}

// Content is one content block of a tool result.
type Content struct {
	Type     string // text, image, audio, resource_link, resource
	Text     string
	MimeType string
	Data     string // base64 data of image or audio content
	URI      string
}

// CallResult is the outcome of tools/call.
type CallResult struct {
	IsError    bool
	Content    []Content
	Structured map[string]any
	// Size is the size in bytes of the result as JSON.
	Size int64
}

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
	info Info
}

// Open begins a session: discovery or initialize (and notifications/initialized). Close it.
func (c *Client) Open(ctx context.Context, srv Server) (*Session, error) {
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
	cs, err := client.Connect(ctx, transport, nil)
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
func (s *Session) Info() Info { return s.info }

// Close ends the session (a DELETE when the server gave a session id).
func (s *Session) Close() error { return s.cs.Close() }

// maxTools bounds a catalog read from one server.
const maxTools = 1000

// Tools lists every tool (following pagination).
func (s *Session) Tools(ctx context.Context) ([]Tool, error) {
	var out []Tool
	for t, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, describe(ctx, "tools/list", err, Server{})
		}
		tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description}
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
func (s *Session) Call(ctx context.Context, name string, args map[string]any) (CallResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return CallResult{}, describe(ctx, "tools/call", err, Server{})
	}
	out := CallResult{IsError: res.IsError, Content: make([]Content, 0, len(res.Content))}
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

func content(c sdk.Content) Content {
	switch v := c.(type) {
	case *sdk.TextContent:
		return Content{Type: "text", Text: v.Text}
	case *sdk.ImageContent:
		return Content{Type: "image", MimeType: v.MIMEType, Data: base64.StdEncoding.EncodeToString(v.Data)}
	case *sdk.AudioContent:
		return Content{Type: "audio", MimeType: v.MIMEType, Data: base64.StdEncoding.EncodeToString(v.Data)}
	case *sdk.ResourceLink:
		return Content{Type: "resource_link", URI: v.URI, MimeType: v.MIMEType, Text: v.Name}
	case *sdk.EmbeddedResource:
		out := Content{Type: "resource"}
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
	return Content{Type: probe.Type}
}

// Probe opens a session, lists the tools and closes it: the connectivity test and the discovery
// of a prepared run.
func (c *Client) Probe(ctx context.Context, srv Server) (Info, []Tool, error) {
	s, err := c.Open(ctx, srv)
	if err != nil {
		return Info{}, nil, err
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
func describe(ctx context.Context, op string, err error, srv Server) error {
	reason := err.Error()
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
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

// String never prints header values.
func (s Server) String() string {
	return fmt.Sprintf("mcp server %s (%d headers)", s.URL, len(s.Headers))
}
