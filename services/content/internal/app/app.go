// Package app holds the content service's use cases: each method checks who may do it (the
// Actor), applies the domain's rules and runs its writes in one transaction of the store.
package app

import (
	"context"
	"io"
	"log/slog"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
)

// Config is what the use cases need to know of the service's configuration; the binary fills
// it from the environment.
type Config struct {
	// TemplatesBucket holds AEP files; MediaBucket font files and SVG previews.
	TemplatesBucket string
	MediaBucket     string
	// AepMaxSingleUpload bounds the file of PUT /projects/{id}/aep.
	AepMaxSingleUpload int64
	// AepChunkSize is the normal part size of multipart uploads (kept within the S3 part rules).
	AepChunkSize int64
	// PartURLTTL is how long presigned part URLs are valid.
	PartURLTTL time.Duration
	// AepUploadMaxAge is when the sweeper aborts an upload never completed.
	AepUploadMaxAge time.Duration
	// PreviewTimeout is when the sweeper fails a preview still Generating.
	PreviewTimeout time.Duration
	// DefaultTenantID is the tenant_id of events caused by a caller without a tenant (a
	// service token bound to none): the envelope requires one.
	DefaultTenantID uuid.UUID
	// SearchCountUpTo bounds the count behind the catalog search's total; zero means
	// domain.MaxCountedTotal.
	SearchCountUpTo int
}

// App runs the content service's use cases.
type App struct {
	store    domain.Store
	objects  domain.ObjectStore
	previews *svgpreview.Generator
	cfg      Config
	log      *slog.Logger
	now      func() time.Time
}

// New returns an App on its store, its object storage and its preview generator.
func New(store domain.Store, objects domain.ObjectStore, previews *svgpreview.Generator, cfg Config, log *slog.Logger) *App {
	cfg.AepChunkSize = max(domain.MinPartSize, min(domain.MaxPartSize, cfg.AepChunkSize))
	return &App{store: store, objects: objects, previews: previews, cfg: cfg, log: log,
		now: func() time.Time { return time.Now().UTC() }}
}

// Config is the configuration the App runs with (the part size kept within the S3 rules).
func (a *App) Config() Config { return a.cfg }

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

// visibleScene reads a scene the actor may see (404 otherwise).
func (a *App) visibleScene(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Scene, error) {
	s, vis, err := a.store.GetScene(ctx, id)
	if err != nil {
		return domain.Scene{}, err
	}
	if !vis.VisibleTo(actor) {
		return domain.Scene{}, domain.ErrSceneNotFound
	}
	return s, nil
}

// errNotFoundAs turns a NotFound of a referenced id into a 400 naming the body field.
func errNotFoundAs(err error, field, msg string) error {
	if errs.KindOf(err) == errs.NotFound {
		return errs.InvalidFields(errs.Field(field, msg))
	}
	return err
}

// boundedReader reads r and fails with err once more than limit bytes came through.
type boundedReader struct {
	r     io.Reader
	limit int64
	n     int64
	err   error
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n > b.limit {
		return 0, b.err
	}
	if rem := b.limit + 1 - b.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		return n, b.err
	}
	return n, err
}

// readAllBounded reads r whole, failing with tooLarge above limit bytes.
func readAllBounded(r io.Reader, limit int64, tooLarge error) ([]byte, error) {
	return io.ReadAll(&boundedReader{r: r, limit: limit, err: tooLarge})
}

// safeName keeps the base name of an uploaded file with only characters that are harmless in
// an object key and a URL; fallback when nothing is left.
func safeName(name, fallback string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)), r == '.', r == '-', r == '_':
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteRune('_')
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" {
		return fallback
	}
	if len(s) > 120 {
		s = s[len(s)-120:]
	}
	return s
}

// deleteQuietly removes an object that is no longer referenced; a failure only costs storage.
func (a *App) deleteQuietly(ctx context.Context, bucket, key string) {
	if err := a.objects.Delete(context.WithoutCancel(ctx), bucket, key); err != nil {
		a.log.WarnContext(ctx, "could not delete an unreferenced object", slog.String("bucket", bucket),
			slog.String("key", key), slog.String("error", err.Error()))
	}
}

// tenantOf is the tenant events of the actor's actions carry.
func (a *App) tenantOf(actor domain.Actor) uuid.UUID {
	if actor.TenantID != uuid.Nil {
		return actor.TenantID
	}
	return a.cfg.DefaultTenantID
}

func invalidField(field, msg string) error { return errs.InvalidFields(errs.Field(field, msg)) }
