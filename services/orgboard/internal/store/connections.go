package store

import (
	"context"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertApiConfig stores a model connection.
func (s *Store) InsertApiConfig(ctx context.Context, c domain.ApiConfig) error {
	return translate(s.q.InsertApiConfig(ctx, orgboarddb.InsertApiConfigParams{
		ID: c.ID, OrganizationID: c.OrganizationID, Name: c.Name, Provider: c.Provider, Endpoint: c.Endpoint,
		Model: c.Model, KeySealed: c.KeySealed, KeyHint: c.KeyHint, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt,
	}), "model connection")
}

// GetApiConfig loads a model connection.
func (s *Store) GetApiConfig(ctx context.Context, id uuid.UUID) (domain.ApiConfig, error) {
	r, err := s.q.GetApiConfig(ctx, id)
	if err != nil {
		return domain.ApiConfig{}, translate(err, "model connection")
	}
	return apiConfig(r), nil
}

// ListApiConfigs lists an organization's model connections by name.
func (s *Store) ListApiConfigs(ctx context.Context, org uuid.UUID) ([]domain.ApiConfig, error) {
	rows, err := s.q.ListApiConfigs(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]domain.ApiConfig, len(rows))
	for i, r := range rows {
		out[i] = apiConfig(r)
	}
	return out, nil
}

// DeleteApiConfig deletes a model connection; Conflict while an agent uses it.
func (s *Store) DeleteApiConfig(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteApiConfig(ctx, id)
	if err != nil {
		return translate(err, "model connection")
	}
	if n == 0 {
		return errs.E(errs.NotFound, "model connection not found")
	}
	return nil
}

func apiConfig(r orgboarddb.ApiConfig) domain.ApiConfig {
	return domain.ApiConfig{
		ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, Provider: r.Provider, Endpoint: r.Endpoint,
		Model: r.Model, KeySealed: r.KeySealed, KeyHint: r.KeyHint, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
	}
}
