package app

import (
	"context"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// Settings returns the public website settings of the caller's tenant over the platform
// defaults; a caller without a tenant gets the defaults.
func (a *App) Settings(ctx context.Context, actor domain.Actor) (domain.Settings, error) {
	return a.store.PublicSettings(ctx, actor.TenantID)
}
