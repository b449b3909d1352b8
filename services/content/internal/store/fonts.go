package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListFonts lists the fonts by name.
func (s *Store) ListFonts(ctx context.Context) ([]domain.Font, error) {
	rows, err := s.q.ListFonts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Font, len(rows))
	for i, r := range rows {
		out[i] = domain.Font{ID: r.ID, Name: r.Name, OriginalName: r.OriginalName, SystemName: r.SystemName,
			Family: r.Family, Style: r.Style, Direction: r.Direction, FileURL: r.FileUrl,
			SampleImageURL: r.SampleImageUrl, Weight: int(r.Weight), IsPremium: r.IsPremium,
			InstalledOnNodes: r.InstalledOnNodes}
	}
	return out, nil
}

// DeleteFont removes a font; content elements that used it keep font_face and lose font_id.
func (s *Store) DeleteFont(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteFont(ctx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.ErrFontNotFound
	}
	return nil
}

// InsertFont writes an uploaded font.
func (s *Store) InsertFont(ctx context.Context, f domain.FontFile) error {
	return translate(s.q.InsertUploadedFont(ctx, contentdb.InsertUploadedFontParams{
		ID: f.ID, Name: f.Name, OriginalName: f.OriginalName, SystemName: f.SystemName,
		Family: f.Family, Style: f.Style, Direction: f.Direction, Weight: i32(f.Weight),
		FileKey: f.FileKey, FileUrl: f.FileURL, FileSizeBytes: f.FileSize, FileFormat: f.Format,
		IsPremium: f.IsPremium, CreatedAt: f.CreatedAt,
	}), nil)
}
