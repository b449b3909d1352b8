package store

import (
	"context"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertToolServer stores a tool server.
func (s *Store) InsertToolServer(ctx context.Context, t domain.ToolServer) error {
	return translate(s.q.InsertToolServer(ctx, orgboarddb.InsertToolServerParams{
		ID: t.ID, OrganizationID: t.OrganizationID, Name: t.Name, Url: t.URL, HeaderNames: nonNil(t.HeaderNames),
		HeadersSealed: t.HeadersSealed, CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt,
	}), "tool server")
}

// GetToolServer loads a tool server.
func (s *Store) GetToolServer(ctx context.Context, id uuid.UUID) (domain.ToolServer, error) {
	r, err := s.q.GetToolServer(ctx, id)
	if err != nil {
		return domain.ToolServer{}, translate(err, "tool server")
	}
	return toolServer(r), nil
}

// ListToolServers lists an organization's tool servers by name.
func (s *Store) ListToolServers(ctx context.Context, org uuid.UUID) ([]domain.ToolServer, error) {
	rows, err := s.q.ListToolServers(ctx, org)
	if err != nil {
		return nil, err
	}
	return toolServers(rows), nil
}

// ListToolServersByID returns the servers among ids that belong to org, in the order of ids.
func (s *Store) ListToolServersByID(ctx context.Context, org uuid.UUID, ids []uuid.UUID) ([]domain.ToolServer, error) {
	if len(ids) == 0 {
		return []domain.ToolServer{}, nil
	}
	rows, err := s.q.ListToolServersByID(ctx, orgboarddb.ListToolServersByIDParams{Ids: ids, OrganizationID: org})
	if err != nil {
		return nil, err
	}
	return toolServers(rows), nil
}

// ShareToolServersByID is ListToolServersByID with the servers locked against deletion.
func (s *Store) ShareToolServersByID(ctx context.Context, org uuid.UUID, ids []uuid.UUID) ([]domain.ToolServer, error) {
	if len(ids) == 0 {
		return []domain.ToolServer{}, nil
	}
	rows, err := s.q.ShareToolServersByID(ctx, orgboarddb.ShareToolServersByIDParams{Ids: ids, OrganizationID: org})
	if err != nil {
		return nil, translate(err, "tool server")
	}
	return toolServers(rows), nil
}

// DeleteToolServer deletes a tool server and unbinds it from every agent of its organization.
// The server is locked first, so that an agent being bound to it meanwhile either commits first
// (and is unbound) or finds it gone.
func (s *Store) DeleteToolServer(ctx context.Context, t domain.ToolServer) error {
	n, err := s.q.LockToolServer(ctx, t.ID)
	if err != nil {
		return translate(err, "tool server")
	}
	if n == 0 {
		return errs.E(errs.NotFound, "tool server not found")
	}
	if err := s.q.UnbindToolServer(ctx, orgboarddb.UnbindToolServerParams{ServerID: t.ID, OrganizationID: t.OrganizationID}); err != nil {
		return translate(err, "tool server")
	}
	n, err = s.q.DeleteToolServer(ctx, t.ID)
	if err != nil {
		return translate(err, "tool server")
	}
	if n == 0 {
		return errs.E(errs.NotFound, "tool server not found")
	}
	return nil
}

func toolServers(rows []orgboarddb.ToolServer) []domain.ToolServer {
	out := make([]domain.ToolServer, len(rows))
	for i, r := range rows {
		out[i] = toolServer(r)
	}
	return out
}

func toolServer(r orgboarddb.ToolServer) domain.ToolServer {
	return domain.ToolServer{
		ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, URL: r.Url, HeaderNames: nonNil(r.HeaderNames),
		HeadersSealed: r.HeadersSealed, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
	}
}
