package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func toolHeadersBinding(id uuid.UUID) string { return "tool_server:" + id.String() }

// ToolServerInput is a new tool server; Headers are write-only.
type ToolServerInput struct {
	OrganizationID uuid.UUID
	Name           string
	URL            string
	Headers        map[string]string
}

// CreateToolServer registers a tool server (ManageApiKeys, Owner only). Its headers are sealed
// as one JSON object bound to the server's id; only their names are kept in clear.
func (a *App) CreateToolServer(ctx context.Context, actor domain.Actor, in ToolServerInput) (domain.ToolServer, error) {
	t := domain.ToolServer{ID: a.newID(), OrganizationID: in.OrganizationID, Name: strings.TrimSpace(in.Name),
		URL: strings.TrimSpace(in.URL), HeaderNames: []string{}, CreatedBy: createdBy(actor), CreatedAt: a.now()}
	var fields []errs.FieldError
	if t.Name == "" {
		fields = append(fields, errs.Field("body.name", "must not be blank"))
	}
	if err := a.urls.CheckURL(ctx, t.URL); err != nil {
		fields = append(fields, errs.Field("body.url", err.Error()))
	}
	seen := map[string]bool{}
	for name, value := range in.Headers {
		if msg := a.tools.CheckHeader(name, value); msg != "" {
			fields = append(fields, errs.Field("body.headers."+name, msg))
			continue
		}
		canon := strings.ToLower(name)
		if seen[canon] {
			fields = append(fields, errs.Field("body.headers."+name, "is given twice"))
			continue
		}
		seen[canon] = true
		t.HeaderNames = append(t.HeaderNames, name)
	}
	if len(fields) > 0 {
		slices.SortFunc(fields, func(x, y errs.FieldError) int { return strings.Compare(x.Field, y.Field) })
		return domain.ToolServer{}, errs.InvalidFields(fields...)
	}
	slices.Sort(t.HeaderNames)
	if len(in.Headers) > 0 {
		raw, err := json.Marshal(in.Headers)
		if err != nil {
			return domain.ToolServer{}, err
		}
		if t.HeadersSealed, err = a.sealer.Seal(raw, toolHeadersBinding(t.ID)); err != nil {
			return domain.ToolServer{}, err
		}
	}
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, t.OrganizationID, domain.ManageApiKeys); err != nil {
			return err
		}
		if err := s.InsertToolServer(ctx, t); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionToolServerCreated, Scope: domain.OrgScope(t.OrganizationID),
			TargetType: domain.TargetToolServer, TargetID: t.ID,
			After: map[string]any{"name": t.Name, "url": t.URL, "header_names": t.HeaderNames},
		})
	})
	return t, err
}

// ListToolServers lists an organization's tool servers (to bind them to agents).
func (a *App) ListToolServers(ctx context.Context, actor domain.Actor, org uuid.UUID) ([]domain.ToolServer, error) {
	s := a.store
	if err := a.authorizeBinding(ctx, s, actor, org); err != nil {
		return nil, err
	}
	return s.ListToolServers(ctx, org)
}

// DeleteToolServer deletes a tool server (ManageApiKeys) and unbinds it from every agent.
func (a *App) DeleteToolServer(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	return a.store.InTx(ctx, func(s domain.Store) error {
		t, err := s.GetToolServer(ctx, id)
		if err != nil {
			return err
		}
		if _, err := a.authorize(ctx, s, actor, domain.OrgScope(t.OrganizationID), domain.ManageApiKeys, "tool server"); err != nil {
			return err
		}
		if err := s.DeleteToolServer(ctx, t); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionToolServerDeleted, Scope: domain.OrgScope(t.OrganizationID),
			TargetType: domain.TargetToolServer, TargetID: t.ID,
			Before: map[string]any{"name": t.Name, "url": t.URL, "header_names": t.HeaderNames},
		})
	})
}

// ToolServerTest is the outcome of a connectivity test.
type ToolServerTest struct {
	ServerID  uuid.UUID
	Reachable bool
	Info      domain.ToolServerInfo
	ToolNames []string
	LatencyMS int64
	Error     *string
	TestedAt  time.Time
}

// TestToolServer runs initialize, notifications/initialized and tools/list against a server
// (ManageApiKeys). An unreachable or failing server is an answer (Reachable false), not an error.
func (a *App) TestToolServer(ctx context.Context, actor domain.Actor, id uuid.UUID) (ToolServerTest, error) {
	s := a.store
	t, err := s.GetToolServer(ctx, id)
	if err != nil {
		return ToolServerTest{}, err
	}
	if _, err := a.authorize(ctx, s, actor, domain.OrgScope(t.OrganizationID), domain.ManageApiKeys, "tool server"); err != nil {
		return ToolServerTest{}, err
	}
	res := ToolServerTest{ServerID: t.ID, ToolNames: []string{}}
	srv, err := a.toolServer(t)
	start := time.Now()
	if err == nil {
		tctx, cancel := context.WithTimeout(ctx, a.limits.ToolTest)
		var tools []domain.Tool
		res.Info, tools, err = a.tools.Probe(tctx, srv)
		cancel()
		for _, tool := range tools {
			res.ToolNames = append(res.ToolNames, tool.Name)
		}
	}
	res.LatencyMS = time.Since(start).Milliseconds()
	res.TestedAt = a.now()
	res.Reachable = err == nil
	if err != nil {
		msg := err.Error()
		res.Error = &msg
		a.log.WarnContext(ctx, "tool server test failed", "tool_server_id", t.ID, "error", msg)
	}
	err = a.store.InTx(ctx, func(s domain.Store) error {
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionToolServerTested, Scope: domain.OrgScope(t.OrganizationID),
			TargetType: domain.TargetToolServer, TargetID: t.ID,
			After: map[string]any{"reachable": res.Reachable, "tool_count": len(res.ToolNames), "error": res.Error,
				"protocol_version": res.Info.ProtocolVersion, "latency_ms": res.LatencyMS},
		})
	})
	return res, err
}

// toolServer opens a tool server's headers.
func (a *App) toolServer(t domain.ToolServer) (domain.ToolEndpoint, error) {
	srv := domain.ToolEndpoint{URL: t.URL}
	if t.HeadersSealed == nil {
		return srv, nil
	}
	raw, err := a.sealer.Open(t.HeadersSealed, toolHeadersBinding(t.ID))
	if err != nil {
		return srv, fmt.Errorf("the tool server's headers cannot be opened (was the sealing key rotated away?): %w", err)
	}
	if err := json.Unmarshal(raw, &srv.Headers); err != nil {
		return srv, fmt.Errorf("the tool server's headers are not a JSON object")
	}
	return srv, nil
}
