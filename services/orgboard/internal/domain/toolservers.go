package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ToolServer is an MCP tool server of an organization. HeadersSealed is the sealed JSON object
// of its authentication headers (nil when none); only HeaderNames are ever shown.
type ToolServer struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	URL            string
	HeaderNames    []string
	HeadersSealed  []byte
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
}

// ToolEndpoint is a tool server to talk to: its streamable HTTP endpoint and the headers
// (opened secrets) to send with every request.
type ToolEndpoint struct {
	URL     string
	Headers map[string]string
}

// String never prints header values.
func (e ToolEndpoint) String() string {
	return fmt.Sprintf("mcp server %s (%d headers)", e.URL, len(e.Headers))
}

// ToolServerInfo is what a tool server said about itself when the session began.
type ToolServerInfo struct {
	ProtocolVersion string
	ServerName      string
	ServerVersion   string
}

// Tool is a tool a server offers.
type Tool struct {
	Name        string
	Title       string
	Description string
	// ReadOnly is the server's readOnlyHint annotation.
	ReadOnly    bool
	InputSchema json.RawMessage
}

// ToolContent is one content block of a tool result.
type ToolContent struct {
	Type     string // text, image, audio, resource_link, resource
	Text     string
	MimeType string
	Data     string // base64 data of image or audio content
	URI      string
}

// ToolResult is the outcome of a tool call.
type ToolResult struct {
	IsError    bool
	Content    []ToolContent
	Structured map[string]any
	// Size is the size in bytes of the result as JSON.
	Size int64
}

// ToolClient talks to tool servers (the Model Context Protocol). Its errors name no header
// value.
type ToolClient interface {
	// Probe opens a session, lists the tools and closes it.
	Probe(ctx context.Context, srv ToolEndpoint) (ToolServerInfo, []Tool, error)
	// Open begins a session; the caller closes it.
	Open(ctx context.Context, srv ToolEndpoint) (ToolSession, error)
	// CheckHeader reports why a configured header cannot be sent ("" when it can).
	CheckHeader(name, value string) string
}

// ToolSession is an open session with a tool server.
type ToolSession interface {
	Tools(ctx context.Context) ([]Tool, error)
	Call(ctx context.Context, name string, args map[string]any) (ToolResult, error)
	Close() error
}

// ToolServerStore keeps tool servers.
type ToolServerStore interface {
	InsertToolServer(ctx context.Context, t ToolServer) error
	GetToolServer(ctx context.Context, id uuid.UUID) (ToolServer, error)
	ListToolServers(ctx context.Context, org uuid.UUID) ([]ToolServer, error)
	// ListToolServersByID lists the organization's servers among ids.
	ListToolServersByID(ctx context.Context, org uuid.UUID, ids []uuid.UUID) ([]ToolServer, error)
	// ShareToolServersByID is ListToolServersByID with the servers kept from deletion until the
	// transaction ends: what an agent is bound to in it exists when it commits.
	ShareToolServersByID(ctx context.Context, org uuid.UUID, ids []uuid.UUID) ([]ToolServer, error)
	// DeleteToolServer deletes t and unbinds it from every agent.
	DeleteToolServer(ctx context.Context, t ToolServer) error
}
