package domain

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"golang.org/x/mod/semver"
)

// ProfileOrigin is Builtin, Authored or Installed.
type ProfileOrigin string

// ProfileVisibility is Private or Public.
type ProfileVisibility string

// ProfileStatus is Draft, Published or Unpublished.
type ProfileStatus string

// The origins, visibilities and statuses of agent profiles.
const (
	OriginBuiltin      ProfileOrigin     = "Builtin"
	OriginAuthored     ProfileOrigin     = "Authored"
	OriginInstalled    ProfileOrigin     = "Installed"
	VisibilityPrivate  ProfileVisibility = "Private"
	VisibilityPublic   ProfileVisibility = "Public"
	ProfileDraft       ProfileStatus     = "Draft"
	ProfilePublished   ProfileStatus     = "Published"
	ProfileUnpublished ProfileStatus     = "Unpublished"
)

// AgentProfile is a reusable agent definition in the AGENTS.md format. Invariant: Public
// implies Published.
type AgentProfile struct {
	ID             uuid.UUID
	OrganizationID *uuid.UUID // nil for a builtin
	Key            string
	Version        string
	Name           string
	Description    string
	Origin         ProfileOrigin
	Visibility     ProfileVisibility
	Status         ProfileStatus
	Skills         []string
	Tools          []string
	Autonomy       Autonomy
	Content        string
	Body           string
	ForkedFrom     *uuid.UUID
	InstalledFrom  *uuid.UUID
	PublishedAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// InLibraryOf reports whether the profile belongs to the organization's library (its own, or
// a builtin, which every library holds).
func (p AgentProfile) InLibraryOf(org uuid.UUID) bool {
	return p.OrganizationID == nil || *p.OrganizationID == org
}

// MarketplaceEntry is a Public profile seen by a browsing organization.
type MarketplaceEntry struct {
	Profile          AgentProfile
	OrganizationName string
	AlreadyInLibrary bool
}

// originRank orders origins for resolution: the organization's own Authored profile wins over
// an Installed one, which wins over a Builtin.
var originRank = map[ProfileOrigin]int{OriginAuthored: 0, OriginInstalled: 1, OriginBuiltin: 2}

// compareResolution orders profiles of one key, the winner first: by origin, then highest
// semantic version (pre-releases below their release), then newest.
func compareResolution(a, b AgentProfile) int {
	if c := cmp.Compare(originRank[a.Origin], originRank[b.Origin]); c != 0 {
		return c
	}
	if c := semver.Compare("v"+b.Version, "v"+a.Version); c != 0 {
		return c
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID.String(), b.ID.String())
}

// SortByResolution orders profiles by key, and within a key the winner first.
func SortByResolution(ps []AgentProfile) {
	slices.SortFunc(ps, func(a, b AgentProfile) int {
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return compareResolution(a, b)
	})
}

// ResolveProfiles returns the resolvable winner of each key, in key order.
func ResolveProfiles(ps []AgentProfile) []AgentProfile {
	sorted := slices.Clone(ps)
	SortByResolution(sorted)
	out := make([]AgentProfile, 0, len(sorted))
	for i, p := range sorted {
		if i == 0 || p.Key != sorted[i-1].Key {
			out = append(out, p)
		}
	}
	return out
}

// ProfileStore keeps agent profiles: the libraries of organizations, the builtin profiles and
// the marketplace of published ones.
type ProfileStore interface {
	InsertAgentProfile(ctx context.Context, p AgentProfile) error
	// InsertBuiltinProfile inserts a builtin profile unless its key and version exist.
	InsertBuiltinProfile(ctx context.Context, p AgentProfile) (inserted bool, err error)
	CountBuiltinProfiles(ctx context.Context) (int64, error)
	GetAgentProfile(ctx context.Context, id uuid.UUID) (AgentProfile, error)
	GetAgentProfileForUpdate(ctx context.Context, id uuid.UUID) (AgentProfile, error)
	ListLibraryProfiles(ctx context.Context, org uuid.UUID) ([]AgentProfile, error)
	ListLibraryProfileVersions(ctx context.Context, org uuid.UUID, key string) ([]AgentProfile, error)
	SetAgentProfilePublication(ctx context.Context, p AgentProfile) error
	// ListMarketplace pages the Public profiles as browser sees them and counts them all.
	ListMarketplace(ctx context.Context, browser uuid.UUID, pattern *string, limit, offset int) ([]MarketplaceEntry, int64, error)
}
