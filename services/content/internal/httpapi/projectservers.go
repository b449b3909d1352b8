package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListProjectServers is GET /project-servers.
func (s *Server) ListProjectServers(ctx context.Context, _ contentserver.ListProjectServersRequestObject) (contentserver.ListProjectServersResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	servers, err := s.app.ListProjectServers(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListProjectServers200JSONResponse{Data: mapAll(servers, func(v domain.ProjectServer) content.ProjectServer {
		return content.ProjectServer{Id: v.ID, Name: v.Name, Region: v.Region, Ip: v.IP,
			DefaultProjectAddress: v.DefaultProjectAddress, RenderOutputLocation: v.RenderOutputLocation,
			MinioEndpoint: v.MinioEndpoint, MinioBucketTemplates: v.MinioBucketTemplates,
			MinioBucketOutputs: v.MinioBucketOutputs, IsActive: v.IsActive}
	})}, nil
}
