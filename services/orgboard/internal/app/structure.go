package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// CreateDivision creates a division (Owner only; a structure write).
func (a *App) CreateDivision(ctx context.Context, actor domain.Actor, org uuid.UUID, name, description string) (domain.Division, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return domain.Division{}, errs.InvalidFields(errs.Field("body.name", "must not be blank"))
	}
	d := domain.Division{ID: a.newID(), OrganizationID: org, Name: name, Description: description, CreatedAt: a.now()}
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ManageStructure); err != nil {
			return err
		}
		if err := s.InsertDivision(ctx, d); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionDivisionCreated, Scope: domain.OrgScope(org),
			TargetType: domain.TargetDivision, TargetID: d.ID,
			After: map[string]any{"name": d.Name, "description": d.Description},
		})
	})
	return d, err
}

// ListDivisions lists an organization's divisions.
func (a *App) ListDivisions(ctx context.Context, actor domain.Actor, org uuid.UUID) ([]domain.Division, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ViewBoard); err != nil {
		return nil, err
	}
	return s.ListDivisions(ctx, org)
}

// ProductInput is a new product.
type ProductInput struct {
	DivisionID  *uuid.UUID
	Name        string
	Kind        domain.ProductKind
	Description string
}

// CreateProduct creates a product or service (Owner only). Its division must be one of the same
// organization: an absent division or one of another organization is a 400.
func (a *App) CreateProduct(ctx context.Context, actor domain.Actor, org uuid.UUID, in ProductInput) (domain.Product, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		return domain.Product{}, errs.InvalidFields(errs.Field("body.name", "must not be blank"))
	}
	if in.Kind != domain.KindProduct && in.Kind != domain.KindService {
		return domain.Product{}, errs.InvalidFields(errs.Field("body.kind", "must be Product or Service"))
	}
	p := domain.Product{ID: a.newID(), OrganizationID: org, DivisionID: in.DivisionID, Name: in.Name,
		Kind: in.Kind, Description: in.Description, CreatedAt: a.now()}
	err := a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ManageStructure); err != nil {
			return err
		}
		if in.DivisionID != nil {
			ok, err := s.DivisionInOrganization(ctx, org, *in.DivisionID)
			if err != nil {
				return err
			}
			if !ok {
				return errs.InvalidFields(errs.Field("body.division_id", "is not a division of the organization"))
			}
		}
		if err := s.InsertProduct(ctx, p); err != nil {
			return err
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionProductCreated, Scope: domain.OrgScope(org),
			TargetType: domain.TargetProduct, TargetID: p.ID,
			After: map[string]any{"name": p.Name, "kind": p.Kind, "division_id": p.DivisionID, "description": p.Description},
		})
	})
	return p, err
}

// ListProducts lists an organization's products, optionally of one division or kind.
func (a *App) ListProducts(ctx context.Context, actor domain.Actor, org uuid.UUID, division *uuid.UUID, kind *domain.ProductKind) ([]domain.Product, error) {
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, org, domain.ViewBoard); err != nil {
		return nil, err
	}
	return s.ListProducts(ctx, org, division, kind)
}

// viewProduct loads a product the caller may view.
func (a *App) viewProduct(ctx context.Context, s domain.Store, actor domain.Actor, id uuid.UUID) (domain.Product, error) {
	p, err := s.GetProduct(ctx, id)
	if err != nil {
		return domain.Product{}, err
	}
	_, err = a.authorize(ctx, s, actor, domain.OrgScope(p.OrganizationID), domain.ViewBoard, "product")
	return p, err
}

// GetProduct reads a product.
func (a *App) GetProduct(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.Product, error) {
	return a.viewProduct(ctx, a.store, actor, id)
}

// GetProductIdentity reads the current identity of a product; version 0 with empty content when
// it was never set.
func (a *App) GetProductIdentity(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.ProductIdentity, error) {
	s := a.store
	p, err := a.viewProduct(ctx, s, actor, id)
	if err != nil {
		return domain.ProductIdentity{}, err
	}
	if p.IdentityVersion == 0 {
		return domain.ProductIdentity{ProductID: p.ID}, nil
	}
	return s.GetProductIdentity(ctx, p.ID, p.IdentityVersion)
}

// ListProductIdentityVersions lists every stored version of a product's identity, newest first.
func (a *App) ListProductIdentityVersions(ctx context.Context, actor domain.Actor, id uuid.UUID) ([]domain.ProductIdentity, error) {
	s := a.store
	p, err := a.viewProduct(ctx, s, actor, id)
	if err != nil {
		return nil, err
	}
	return s.ListProductIdentities(ctx, p.ID)
}

// SetProductIdentity stores a new version of a product's identity (Owner only). The previous
// versions are kept. base, when given, must be the current version (else Conflict).
func (a *App) SetProductIdentity(ctx context.Context, actor domain.Actor, id uuid.UUID, content string, base *int64) (domain.ProductIdentity, error) {
	var out domain.ProductIdentity
	err := a.store.InTx(ctx, func(s domain.Store) error {
		p, err := s.GetProductForUpdate(ctx, id)
		if err != nil {
			return err
		}
		if _, err := a.authorize(ctx, s, actor, domain.OrgScope(p.OrganizationID), domain.ManageStructure, "product"); err != nil {
			return err
		}
		if err := domain.CheckIdentity(content, base, p.IdentityVersion); err != nil {
			return err
		}
		now := a.now()
		out = domain.ProductIdentity{ProductID: p.ID, Content: content, Version: p.IdentityVersion + 1,
			UpdatedAt: &now, UpdatedBy: actor.UserIDPtr()}
		if err := s.AppendProductIdentity(ctx, out); err != nil {
			return err
		}
		// The texts themselves stay in the identity's versions; the entry identifies them.
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionProductIdentityUpdated, Scope: domain.OrgScope(p.OrganizationID),
			TargetType: domain.TargetProduct, TargetID: p.ID,
			Before: map[string]any{"version": p.IdentityVersion},
			After: map[string]any{"version": out.Version, "characters": utf8.RuneCountInString(content),
				"sha256": sha256Hex(content)},
		})
	})
	return out, err
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
