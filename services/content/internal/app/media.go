package app

import (
	"context"
	"io"
	"log/slog"
	"path"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// S3 part rules.
const (
	minPartSize = 5 << 20
	maxPartSize = 5 << 30
	maxParts    = 10_000
	// MaxAepTotalSize is the largest multipart AEP upload (the contract's bound, 50 GiB).
	MaxAepTotalSize = 50 << 30
)

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
