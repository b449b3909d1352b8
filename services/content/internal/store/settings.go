package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// PublicSettings resolves the public website settings of tenant over the platform defaults.
func (s *Store) PublicSettings(ctx context.Context, tenant uuid.UUID) (domain.Settings, error) {
	rows, err := s.q.ListPublicSettings(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := make(domain.Settings, len(rows))
	for _, r := range rows {
		out[r.Key] = r.Value
	}
	return out, nil
}
