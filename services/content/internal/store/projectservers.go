package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// ProjectServerExists reports whether id is a project server.
func (s *Store) ProjectServerExists(ctx context.Context, id uuid.UUID) (bool, error) {
	return s.q.ProjectServerExists(ctx, id)
}

// ListProjectServers lists the render servers by name.
func (s *Store) ListProjectServers(ctx context.Context) ([]domain.ProjectServer, error) {
	rows, err := s.q.ListProjectServers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.ProjectServer, len(rows))
	for i, r := range rows {
		out[i] = domain.ProjectServer{ID: r.ID, Name: r.Name, Region: r.Region, IP: r.Ip,
			DefaultProjectAddress: r.DefaultProjectAddress, RenderOutputLocation: r.RenderOutputLocation,
			MinioEndpoint: r.MinioEndpoint, MinioBucketTemplates: r.MinioBucketTemplates,
			MinioBucketOutputs: r.MinioBucketOutputs, IsActive: r.IsActive}
	}
	return out, nil
}
