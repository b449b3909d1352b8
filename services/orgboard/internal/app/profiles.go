package app

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/domain/agentsmd"
)

// profileFrom makes a profile of a parsed AGENTS.md.
func profileFrom(doc agentsmd.Profile) domain.AgentProfile {
	return domain.AgentProfile{
		Key: doc.Key, Version: doc.Version, Name: doc.Name, Description: doc.Description,
		Skills: doc.Skills, Tools: doc.Tools, Autonomy: domain.Autonomy(doc.Autonomy),
		Content: doc.Content, Body: doc.Body,
	}
}

// profileAudit is what an audit entry records of a profile (not its text).
func profileAudit(p domain.AgentProfile) map[string]any {
	return map[string]any{"profile_key": p.Key, "version": p.Version, "origin": p.Origin,
		"visibility": p.Visibility, "status": p.Status, "forked_from": p.ForkedFrom, "installed_from": p.InstalledFrom}
}

// UploadAgentProfile parses an AGENTS.md and stores it in the organization's library: origin
// Authored, status Draft, visibility Private (ConfigureAgents at the organization).
func (a *App) UploadAgentProfile(ctx context.Context, actor domain.Actor, org uuid.UUID, content []byte) (domain.AgentProfile, error) {
	// An outsider learns nothing, not even whether the file is valid.
	if _, err := a.authorizeOrg(ctx, a.store, actor, org, domain.ConfigureAgents); err != nil {
		return domain.AgentProfile{}, err
	}
	doc, err := agentsmd.Parse(content)
	if err != nil {
		return domain.AgentProfile{}, err
	}
	p := profileFrom(doc)
	now := a.now()
	p.ID, p.OrganizationID, p.Origin, p.Visibility, p.Status = a.newID(), &org, domain.OriginAuthored, domain.VisibilityPrivate, domain.ProfileDraft
	p.CreatedAt, p.UpdatedAt = now, now
	err = a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ConfigureAgents); err != nil {
			return err
		}
		if err := s.InsertAgentProfile(ctx, p); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentProfileUploaded, Scope: domain.OrgScope(org),
			TargetType: domain.TargetAgentProfile, TargetID: p.ID, After: profileAudit(p),
		})
	})
	return p, err
}

// ListAgentProfiles returns the resolvable winner of each key of the organization's library
// (its profiles and the builtins), in key order (ViewBoard).
func (a *App) ListAgentProfiles(ctx context.Context, actor domain.Actor, org uuid.UUID) ([]domain.AgentProfile, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ViewBoard); err != nil {
		return nil, err
	}
	all, err := s.ListLibraryProfiles(ctx, org)
	if err != nil {
		return nil, err
	}
	return domain.ResolveProfiles(all), nil
}

// ListAgentProfileVersions lists every profile of a key in the organization's library, the
// winner first (ViewBoard).
func (a *App) ListAgentProfileVersions(ctx context.Context, actor domain.Actor, org uuid.UUID, key string) ([]domain.AgentProfile, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ViewBoard); err != nil {
		return nil, err
	}
	ps, err := s.ListLibraryProfileVersions(ctx, org, key)
	if err != nil {
		return nil, err
	}
	domain.SortByResolution(ps)
	return ps, nil
}

// MarketplacePage is one page of the marketplace.
type MarketplacePage struct {
	Entries []domain.MarketplaceEntry
	Total   int64
}

// ListMarketplace lists the Public profiles of every organization, newest published first,
// each flagged when the browsing organization's library holds its key and version (ViewBoard).
func (a *App) ListMarketplace(ctx context.Context, actor domain.Actor, org uuid.UUID, q string, page, size int) (MarketplacePage, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ViewBoard); err != nil {
		return MarketplacePage{}, err
	}
	var pattern *string
	if q = strings.TrimSpace(q); q != "" {
		p := "%" + likeEscaper.Replace(q) + "%"
		pattern = &p
	}
	entries, total, err := s.ListMarketplace(ctx, org, pattern, size, (page-1)*size)
	return MarketplacePage{Entries: entries, Total: total}, err
}

// likeEscaper makes a search text literal inside an ILIKE pattern (backslash is the default
// escape character).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// visibleProfile loads a profile the caller may see: one of its organizations', a builtin, or a
// Public one; anything else is 404.
func (a *App) visibleProfile(ctx context.Context, s domain.Store, actor domain.Actor, id uuid.UUID) (domain.AgentProfile, error) {
	if err := actor.RequireKnown(); err != nil {
		return domain.AgentProfile{}, err
	}
	p, err := s.GetAgentProfile(ctx, id)
	if err != nil {
		return p, err
	}
	if p.OrganizationID == nil || p.Visibility == domain.VisibilityPublic {
		return p, nil
	}
	if _, err := a.authorize(ctx, s, actor, domain.OrgScope(*p.OrganizationID), domain.ViewBoard, "agent profile"); err != nil {
		return domain.AgentProfile{}, err
	}
	return p, nil
}

// GetAgentProfile reads a visible profile.
func (a *App) GetAgentProfile(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.AgentProfile, error) {
	return a.visibleProfile(ctx, a.store, actor, id)
}

// ownProfileForUpdate locks a profile of an organization for a ConfigureAgents change. A
// builtin answers Conflict (it belongs to no organization and cannot change); a profile of an
// organization the caller is not a member of answers 404.
func (a *App) ownProfileForUpdate(ctx context.Context, s domain.Store, actor domain.Actor, id uuid.UUID) (domain.AgentProfile, error) {
	if err := actor.RequireKnown(); err != nil {
		return domain.AgentProfile{}, err
	}
	p, err := s.GetAgentProfileForUpdate(ctx, id)
	if err != nil {
		return p, err
	}
	if p.OrganizationID == nil {
		return p, errs.E(errs.Conflict, "a builtin profile cannot be published or unpublished; fork it first")
	}
	if _, err := a.authorize(ctx, s, actor, domain.OrgScope(*p.OrganizationID), domain.ConfigureAgents, "agent profile"); err != nil {
		return domain.AgentProfile{}, err
	}
	return p, nil
}

// PublishAgentProfile publishes an Authored profile with the visibility given (Private by
// default); Public puts it in the marketplace (ConfigureAgents).
func (a *App) PublishAgentProfile(ctx context.Context, actor domain.Actor, id uuid.UUID, visibility domain.ProfileVisibility) (domain.AgentProfile, error) {
	if visibility == "" {
		visibility = domain.VisibilityPrivate
	}
	if visibility != domain.VisibilityPrivate && visibility != domain.VisibilityPublic {
		return domain.AgentProfile{}, errs.InvalidFields(errs.Field("body.visibility", "must be Private or Public"))
	}
	var p domain.AgentProfile
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if p, err = a.ownProfileForUpdate(ctx, s, actor, id); err != nil {
			return err
		}
		if p.Origin != domain.OriginAuthored {
			return errs.Ef(errs.Conflict, "only Authored profiles can be published; this one is %s", p.Origin)
		}
		before := profileAudit(p)
		now := a.now()
		if p.Status != domain.ProfilePublished || p.PublishedAt == nil {
			p.PublishedAt = &now
		}
		p.Status, p.Visibility, p.UpdatedAt = domain.ProfilePublished, visibility, now
		if err := s.SetAgentProfilePublication(ctx, p); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentProfilePublished, Scope: domain.OrgScope(*p.OrganizationID),
			TargetType: domain.TargetAgentProfile, TargetID: p.ID, Before: before, After: profileAudit(p),
		})
	})
	return p, err
}

// UnpublishAgentProfile makes a Published profile Unpublished and Private, so it leaves the
// marketplace; copies installed elsewhere stay (ConfigureAgents).
func (a *App) UnpublishAgentProfile(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.AgentProfile, error) {
	var p domain.AgentProfile
	err := a.store.InTx(ctx, func(s domain.Store) error {
		var err error
		if p, err = a.ownProfileForUpdate(ctx, s, actor, id); err != nil {
			return err
		}
		if p.Status != domain.ProfilePublished {
			return errs.Ef(errs.Conflict, "the profile is %s, not Published", p.Status)
		}
		before := profileAudit(p)
		p.Status, p.Visibility, p.PublishedAt, p.UpdatedAt = domain.ProfileUnpublished, domain.VisibilityPrivate, nil, a.now()
		if err := s.SetAgentProfilePublication(ctx, p); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentProfileUnpublished, Scope: domain.OrgScope(*p.OrganizationID),
			TargetType: domain.TargetAgentProfile, TargetID: p.ID, Before: before, After: profileAudit(p),
		})
	})
	return p, err
}

// ForkInput names the organization receiving a fork and, optionally, a new key or version.
type ForkInput struct {
	OrganizationID uuid.UUID
	Key            *string
	Version        *string
}

// ForkAgentProfile copies a profile visible to the target organization into its library as a
// new private Authored Draft (ConfigureAgents at the target).
func (a *App) ForkAgentProfile(ctx context.Context, actor domain.Actor, id uuid.UUID, in ForkInput) (domain.AgentProfile, error) {
	var fields []errs.FieldError
	if in.Key != nil && !agentsmd.ValidKey(*in.Key) {
		fields = append(fields, errs.Field("body.profile_key", "must match [a-z0-9][a-z0-9-]* with at most 64 characters"))
	}
	if in.Version != nil {
		if msg := agentsmd.CheckVersion(*in.Version); msg != "" {
			fields = append(fields, errs.Field("body.version", msg))
		}
	}
	if len(fields) > 0 {
		return domain.AgentProfile{}, errs.InvalidFields(fields...)
	}
	var fork domain.AgentProfile
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, in.OrganizationID, domain.ConfigureAgents); err != nil {
			return err
		}
		src, err := s.GetAgentProfile(ctx, id)
		if err != nil {
			return err
		}
		if !src.InLibraryOf(in.OrganizationID) && src.Visibility != domain.VisibilityPublic {
			return errs.E(errs.NotFound, "agent profile not found")
		}
		fork = copyProfile(src, a.newID(), in.OrganizationID, a.now())
		fork.Origin, fork.Status, fork.ForkedFrom = domain.OriginAuthored, domain.ProfileDraft, &src.ID
		if in.Key != nil {
			fork.Key = *in.Key
		}
		if in.Version != nil {
			fork.Version = *in.Version
		}
		if (in.Key != nil && *in.Key != src.Key) || (in.Version != nil && *in.Version != src.Version) {
			// The content's frontmatter must say what the record says.
			fork.Content = rewriteFrontmatter(src.Content, fork.Key, fork.Version)
		}
		if err := s.InsertAgentProfile(ctx, fork); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentProfileForked, Scope: domain.OrgScope(in.OrganizationID),
			TargetType: domain.TargetAgentProfile, TargetID: fork.ID, After: profileAudit(fork),
		})
	})
	return fork, err
}

// InstallAgentProfile copies a Public marketplace profile into the installing organization's
// library: Installed, Published, Private. Insert-only: the same key and version already in the
// library is a Conflict and nothing is overwritten (ConfigureAgents).
func (a *App) InstallAgentProfile(ctx context.Context, actor domain.Actor, id, org uuid.UUID) (domain.AgentProfile, error) {
	var copyOf domain.AgentProfile
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ConfigureAgents); err != nil {
			return err
		}
		src, err := s.GetAgentProfile(ctx, id)
		if err != nil {
			return err
		}
		if src.Visibility != domain.VisibilityPublic || src.OrganizationID == nil {
			return errs.E(errs.NotFound, "agent profile not found in the marketplace")
		}
		now := a.now()
		copyOf = copyProfile(src, a.newID(), org, now)
		copyOf.Origin, copyOf.Status, copyOf.InstalledFrom, copyOf.PublishedAt = domain.OriginInstalled, domain.ProfilePublished, &src.ID, &now
		if err := s.InsertAgentProfile(ctx, copyOf); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentProfileInstalled, Scope: domain.OrgScope(org),
			TargetType: domain.TargetAgentProfile, TargetID: copyOf.ID, After: profileAudit(copyOf),
		})
	})
	return copyOf, err
}

func copyProfile(src domain.AgentProfile, id, org uuid.UUID, now time.Time) domain.AgentProfile {
	p := src
	p.ID, p.OrganizationID, p.Visibility = id, &org, domain.VisibilityPrivate
	p.Skills, p.Tools = append([]string{}, src.Skills...), append([]string{}, src.Tools...)
	p.ForkedFrom, p.InstalledFrom, p.PublishedAt = nil, nil, nil
	p.CreatedAt, p.UpdatedAt = now, now
	return p
}

// rewriteFrontmatter sets the key and version lines of an AGENTS.md's frontmatter (a valid
// file: the parser accepted it, so the keys are top-level scalars on their own lines).
func rewriteFrontmatter(content, key, version string) string {
	lines := strings.SplitAfter(content, "\n")
	inFront := false
	for i, line := range lines {
		trimmed := strings.TrimRight(line, "\r\n")
		if strings.TrimRight(trimmed, " \t") == "---" {
			if inFront {
				break
			}
			inFront = true
			continue
		}
		if !inFront {
			continue
		}
		eol := line[len(trimmed):]
		switch {
		case strings.HasPrefix(trimmed, "key:"):
			lines[i] = "key: " + key + eol
		case strings.HasPrefix(trimmed, "version:"):
			lines[i] = "version: " + version + eol
		}
	}
	return strings.Join(lines, "")
}
