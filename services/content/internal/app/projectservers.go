package app

import (
	"context"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListProjectServers lists the render servers (service tokens only).
func (a *App) ListProjectServers(ctx context.Context, actor domain.Actor) ([]domain.ProjectServer, error) {
	if !actor.Service {
		return nil, errs.E(errs.Forbidden, "render servers are listed for services only")
	}
	return a.store.ListProjectServers(ctx)
}
