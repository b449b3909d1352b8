// Package app holds the content service's use cases: each method checks who may do it (the
// Actor), applies the domain's rules and runs its writes in one transaction of the store.
package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// App runs the use cases of the catalog core. The media pipeline (uploads, SVG previews) lives
// beside it and may reach the same store through Store.
type App struct {
	store domain.Store
	now   func() time.Time
}

// Option changes how an App is built.
type Option func(*App)

// WithClock makes the App read time from now (tests).
func WithClock(now func() time.Time) Option { return func(a *App) { a.now = now } }

// New returns an App on store.
func New(store domain.Store, opts ...Option) *App {
	a := &App{store: store, now: func() time.Time { return time.Now().UTC() }}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Store is the App's store, for use cases written beside the App (the media pipeline).
func (a *App) Store() domain.Store { return a.store }

// newID makes a UUIDv7.
func newID() (uuid.UUID, error) { return uuid.NewV7() }

// visibleProject reads a project the actor may see (404 otherwise).
func (a *App) visibleProject(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Project, error) {
	p, vis, err := a.store.GetProject(ctx, id)
	if err != nil {
		return domain.Project{}, err
	}
	if !vis.VisibleTo(actor) {
		return domain.Project{}, domain.ErrProjectNotFound
	}
	return p, nil
}

// VisibleProject reads a project the actor may see (404 otherwise), for the media pipeline.
func (a *App) VisibleProject(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Project, error) {
	return a.visibleProject(ctx, actor, id)
}

// VisibleScene reads a scene the actor may see (404 otherwise).
func (a *App) VisibleScene(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Scene, error) {
	s, vis, err := a.store.GetScene(ctx, id)
	if err != nil {
		return domain.Scene{}, err
	}
	if !vis.VisibleTo(actor) {
		return domain.Scene{}, domain.ErrSceneNotFound
	}
	return s, nil
}
