package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateToolServer registers a tool server.
func (s *Server) CreateToolServer(ctx context.Context, req orgboardserver.CreateToolServerRequestObject) (orgboardserver.CreateToolServerResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	in := app.ToolServerInput{OrganizationID: b.OrganizationId, Name: b.Name, URL: b.Url}
	if b.Headers != nil {
		in.Headers = *b.Headers
	}
	t, err := s.app.CreateToolServer(ctx, actor, in)
	if err != nil {
		return nil, err
	}
	return orgboardserver.CreateToolServer201JSONResponse(toolServerOut(t)), nil
}

// ListToolServers lists tool servers.
func (s *Server) ListToolServers(ctx context.Context, req orgboardserver.ListToolServersRequestObject) (orgboardserver.ListToolServersResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := s.app.ListToolServers(ctx, actor, req.Params.OrganizationId)
	if err != nil {
		return nil, err
	}
	out := orgboard.McpServerConfigList{Data: make([]orgboard.McpServerConfig, len(ts))}
	for i, t := range ts {
		out.Data[i] = toolServerOut(t)
	}
	return orgboardserver.ListToolServers200JSONResponse(out), nil
}

// DeleteToolServer deletes a tool server.
func (s *Server) DeleteToolServer(ctx context.Context, req orgboardserver.DeleteToolServerRequestObject) (orgboardserver.DeleteToolServerResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteToolServer(ctx, actor, req.Id); err != nil {
		return nil, err
	}
	return orgboardserver.DeleteToolServer204Response{}, nil
}

// TestToolServerConnectivity tests a tool server; an unreachable one answers 200 with
// reachable false.
func (s *Server) TestToolServerConnectivity(ctx context.Context, req orgboardserver.TestToolServerConnectivityRequestObject) (orgboardserver.TestToolServerConnectivityResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.app.TestToolServer(ctx, actor, req.Id)
	if err != nil {
		return nil, err
	}
	return orgboardserver.TestToolServerConnectivity200JSONResponse(orgboard.ToolServerTestResult{
		ServerId: r.ServerID, Reachable: r.Reachable, ProtocolVersion: nonEmpty(r.Info.ProtocolVersion),
		ServerName: nonEmpty(r.Info.ServerName), ServerVersion: nonEmpty(r.Info.ServerVersion),
		ToolCount: len(r.ToolNames), ToolNames: r.ToolNames, LatencyMs: r.LatencyMS, Error: r.Error, TestedAt: r.TestedAt,
	}), nil
}

// toolServerOut carries the header names only.
func toolServerOut(t domain.ToolServer) orgboard.McpServerConfig {
	return orgboard.McpServerConfig{Id: t.ID, OrganizationId: t.OrganizationID, Name: t.Name, Url: t.URL,
		HeaderNames: t.HeaderNames, CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt}
}
