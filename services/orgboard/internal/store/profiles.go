package store

import (
	"context"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertAgentProfile stores a profile; Conflict when its library already holds the key and
// version.
func (s *Store) InsertAgentProfile(ctx context.Context, p domain.AgentProfile) error {
	return translate(s.q.InsertAgentProfile(ctx, orgboarddb.InsertAgentProfileParams{
		ID: p.ID, OrganizationID: p.OrganizationID, ProfileKey: p.Key, Version: p.Version, Name: p.Name,
		Description: p.Description, Origin: string(p.Origin), Visibility: string(p.Visibility), Status: string(p.Status),
		Skills: nonNil(p.Skills), Tools: nonNil(p.Tools), Autonomy: string(p.Autonomy), Content: p.Content, Body: p.Body,
		ForkedFrom: p.ForkedFrom, InstalledFrom: p.InstalledFrom, PublishedAt: p.PublishedAt,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}), "agent profile")
}

// InsertBuiltinProfile seeds a builtin profile; inserted is false when its key and version
// were already there (nothing is changed then).
func (s *Store) InsertBuiltinProfile(ctx context.Context, p domain.AgentProfile) (inserted bool, err error) {
	n, err := s.q.InsertBuiltinProfile(ctx, orgboarddb.InsertBuiltinProfileParams{
		ID: p.ID, ProfileKey: p.Key, Version: p.Version, Name: p.Name, Description: p.Description,
		Skills: nonNil(p.Skills), Tools: nonNil(p.Tools), Autonomy: string(p.Autonomy), Content: p.Content, Body: p.Body,
		PublishedAt: &p.CreatedAt,
	})
	return n == 1, err
}

// CountBuiltinProfiles counts the builtin profiles.
func (s *Store) CountBuiltinProfiles(ctx context.Context) (int64, error) {
	return s.q.CountBuiltinProfiles(ctx)
}

// GetAgentProfile loads a profile.
func (s *Store) GetAgentProfile(ctx context.Context, id uuid.UUID) (domain.AgentProfile, error) {
	r, err := s.q.GetAgentProfile(ctx, id)
	if err != nil {
		return domain.AgentProfile{}, translate(err, "agent profile")
	}
	return agentProfile(r), nil
}

// GetAgentProfileForUpdate loads and locks a profile.
func (s *Store) GetAgentProfileForUpdate(ctx context.Context, id uuid.UUID) (domain.AgentProfile, error) {
	r, err := s.q.GetAgentProfileForUpdate(ctx, id)
	if err != nil {
		return domain.AgentProfile{}, translate(err, "agent profile")
	}
	return agentProfile(r), nil
}

// ListLibraryProfiles lists an organization's profiles and the builtins.
func (s *Store) ListLibraryProfiles(ctx context.Context, org uuid.UUID) ([]domain.AgentProfile, error) {
	rows, err := s.q.ListLibraryProfiles(ctx, &org)
	if err != nil {
		return nil, err
	}
	return agentProfiles(rows), nil
}

// ListLibraryProfileVersions lists the profiles of one key in an organization's library
// (builtins included).
func (s *Store) ListLibraryProfileVersions(ctx context.Context, org uuid.UUID, key string) ([]domain.AgentProfile, error) {
	rows, err := s.q.ListLibraryProfileVersions(ctx, orgboarddb.ListLibraryProfileVersionsParams{OrganizationID: &org, ProfileKey: key})
	if err != nil {
		return nil, err
	}
	return agentProfiles(rows), nil
}

// SetAgentProfilePublication stores a profile's status, visibility and publication time.
func (s *Store) SetAgentProfilePublication(ctx context.Context, p domain.AgentProfile) error {
	return translate(s.q.SetAgentProfilePublication(ctx, orgboarddb.SetAgentProfilePublicationParams{
		ID: p.ID, Status: string(p.Status), Visibility: string(p.Visibility), PublishedAt: p.PublishedAt, UpdatedAt: p.UpdatedAt,
	}), "agent profile")
}

// ListMarketplace returns one page of Public profiles (newest published first) matching the
// ILIKE pattern (nil for all), seen by the browsing organization, and the total count.
func (s *Store) ListMarketplace(ctx context.Context, browser uuid.UUID, pattern *string, limit, offset int) ([]domain.MarketplaceEntry, int64, error) {
	rows, err := s.q.ListMarketplaceProfiles(ctx, orgboarddb.ListMarketplaceProfilesParams{
		Browser: &browser, Pattern: pattern, PageLimit: int32(limit), PageOffset: int32(offset),
	})
	if err != nil {
		return nil, 0, err
	}
	total, err := s.q.CountMarketplaceProfiles(ctx, pattern)
	if err != nil {
		return nil, 0, err
	}
	out := make([]domain.MarketplaceEntry, len(rows))
	for i, r := range rows {
		out[i] = domain.MarketplaceEntry{
			Profile: agentProfile(orgboarddb.AgentProfile{
				ID: r.ID, OrganizationID: r.OrganizationID, ProfileKey: r.ProfileKey, Version: r.Version, Name: r.Name,
				Description: r.Description, Origin: r.Origin, Visibility: r.Visibility, Status: r.Status, Skills: r.Skills,
				Tools: r.Tools, Autonomy: r.Autonomy, Content: r.Content, Body: r.Body, ForkedFrom: r.ForkedFrom,
				InstalledFrom: r.InstalledFrom, PublishedAt: r.PublishedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			}),
			OrganizationName: r.OrganizationName,
			AlreadyInLibrary: r.AlreadyInLibrary,
		}
	}
	return out, total, nil
}

func agentProfiles(rows []orgboarddb.AgentProfile) []domain.AgentProfile {
	out := make([]domain.AgentProfile, len(rows))
	for i, r := range rows {
		out[i] = agentProfile(r)
	}
	return out
}

func agentProfile(r orgboarddb.AgentProfile) domain.AgentProfile {
	return domain.AgentProfile{
		ID: r.ID, OrganizationID: r.OrganizationID, Key: r.ProfileKey, Version: r.Version, Name: r.Name,
		Description: r.Description, Origin: domain.ProfileOrigin(r.Origin), Visibility: domain.ProfileVisibility(r.Visibility),
		Status: domain.ProfileStatus(r.Status), Skills: nonNil(r.Skills), Tools: nonNil(r.Tools),
		Autonomy: domain.Autonomy(r.Autonomy), Content: r.Content, Body: r.Body, ForkedFrom: r.ForkedFrom,
		InstalledFrom: r.InstalledFrom, PublishedAt: r.PublishedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}
