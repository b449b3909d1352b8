package app

import (
	"bytes"
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListFonts lists the font library.
func (a *App) ListFonts(ctx context.Context, _ domain.Actor) ([]domain.Font, error) {
	return a.store.ListFonts(ctx)
}

// DeleteFont removes a font (admin); elements using it keep their font_face.
func (a *App) DeleteFont(ctx context.Context, actor domain.Actor, id uuid.UUID) error {
	if err := actor.RequireAdmin(); err != nil {
		return err
	}
	return a.store.DeleteFont(ctx, id)
}

// CreateFont stores a font file and adds it to the library; name, family, style and weight
// come from the file where the request does not give them.
func (a *App) CreateFont(ctx context.Context, actor domain.Actor, in domain.FontUpload) (domain.Font, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Font{}, err
	}
	if len(in.Data) > domain.MaxFontBytes {
		return domain.Font{}, domain.ErrFontTooLarge
	}
	f, format, err := domain.DescribeFont(in)
	if err != nil {
		return domain.Font{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.Font{}, err
	}
	f.ID = id
	key := fmt.Sprintf("fonts/%s/%s", id, safeName(in.Filename, "font."+format))
	bucket := a.cfg.MediaBucket
	size, _, err := a.objects.Put(ctx, bucket, key, domain.FontContentType(format), bytes.NewReader(in.Data))
	if err != nil {
		return domain.Font{}, err
	}
	f.FileURL = a.objects.URL(bucket, key)
	err = a.store.InsertFont(ctx, domain.FontFile{Font: f, FileKey: key, FileSize: size, Format: format, CreatedAt: a.now()})
	if err != nil {
		a.deleteQuietly(ctx, bucket, key)
		return domain.Font{}, err
	}
	return f, nil
}
