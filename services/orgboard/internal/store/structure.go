package store

import (
	"context"

	"github.com/google/uuid"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// InsertDivision stores a division; Conflict on a duplicate name in the organization.
func (s *Store) InsertDivision(ctx context.Context, d domain.Division) error {
	return translate(s.q.InsertDivision(ctx, orgboarddb.InsertDivisionParams{
		ID: d.ID, OrganizationID: d.OrganizationID, Name: d.Name, Description: d.Description, CreatedAt: d.CreatedAt,
	}), "division")
}

// ListDivisions lists an organization's divisions by name then id.
func (s *Store) ListDivisions(ctx context.Context, org uuid.UUID) ([]domain.Division, error) {
	rows, err := s.q.ListDivisions(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Division, len(rows))
	for i, r := range rows {
		out[i] = domain.Division{ID: r.ID, OrganizationID: r.OrganizationID, Name: r.Name, Description: r.Description, CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// DivisionInOrganization reports whether division id belongs to org.
func (s *Store) DivisionInOrganization(ctx context.Context, org, id uuid.UUID) (bool, error) {
	return s.q.DivisionExists(ctx, orgboarddb.DivisionExistsParams{OrganizationID: org, ID: id})
}

// ProductInOrganization reports whether product id belongs to org.
func (s *Store) ProductInOrganization(ctx context.Context, org, id uuid.UUID) (bool, error) {
	return s.q.ProductExists(ctx, orgboarddb.ProductExistsParams{OrganizationID: org, ID: id})
}

// InsertProduct stores a product; Conflict on a duplicate name, Invalid for a division of
// another organization.
func (s *Store) InsertProduct(ctx context.Context, p domain.Product) error {
	return translate(s.q.InsertProduct(ctx, orgboarddb.InsertProductParams{
		ID: p.ID, OrganizationID: p.OrganizationID, DivisionID: p.DivisionID, Name: p.Name,
		Kind: string(p.Kind), Description: p.Description, CreatedAt: p.CreatedAt,
	}), "product")
}

// GetProduct loads a product.
func (s *Store) GetProduct(ctx context.Context, id uuid.UUID) (domain.Product, error) {
	r, err := s.q.GetProduct(ctx, id)
	if err != nil {
		return domain.Product{}, translate(err, "product")
	}
	return product(r), nil
}

// GetProductForUpdate loads and locks a product (identity writes serialise on it).
func (s *Store) GetProductForUpdate(ctx context.Context, id uuid.UUID) (domain.Product, error) {
	r, err := s.q.GetProductForUpdate(ctx, id)
	if err != nil {
		return domain.Product{}, translate(err, "product")
	}
	return product(r), nil
}

// ListProducts lists an organization's products, optionally of one division or kind.
func (s *Store) ListProducts(ctx context.Context, org uuid.UUID, division *uuid.UUID, kind *domain.ProductKind) ([]domain.Product, error) {
	var k *string
	if kind != nil {
		v := string(*kind)
		k = &v
	}
	rows, err := s.q.ListProducts(ctx, orgboarddb.ListProductsParams{OrganizationID: org, DivisionID: division, Kind: k})
	if err != nil {
		return nil, err
	}
	out := make([]domain.Product, len(rows))
	for i, r := range rows {
		out[i] = product(r)
	}
	return out, nil
}

func product(r orgboarddb.Product) domain.Product {
	return domain.Product{
		ID: r.ID, OrganizationID: r.OrganizationID, DivisionID: r.DivisionID, Name: r.Name,
		Kind: domain.ProductKind(r.Kind), Description: r.Description, IdentityVersion: r.IdentityVersion,
		CreatedAt: r.CreatedAt,
	}
}

// AppendProductIdentity stores a new identity version and makes it the product's current one.
// Earlier versions stay (the table refuses updates and deletes).
func (s *Store) AppendProductIdentity(ctx context.Context, id domain.ProductIdentity) error {
	if err := s.q.InsertProductIdentity(ctx, orgboarddb.InsertProductIdentityParams{
		ProductID: id.ProductID, Version: id.Version, Content: id.Content, UpdatedBy: id.UpdatedBy, UpdatedAt: *id.UpdatedAt,
	}); err != nil {
		return translate(err, "product identity")
	}
	return s.q.SetProductIdentityVersion(ctx, orgboarddb.SetProductIdentityVersionParams{ID: id.ProductID, IdentityVersion: id.Version})
}

// GetProductIdentity loads one version of a product identity.
func (s *Store) GetProductIdentity(ctx context.Context, product uuid.UUID, version int64) (domain.ProductIdentity, error) {
	r, err := s.q.GetProductIdentity(ctx, orgboarddb.GetProductIdentityParams{ProductID: product, Version: version})
	if err != nil {
		return domain.ProductIdentity{}, translate(err, "product identity")
	}
	return identity(r), nil
}

// ListProductIdentities lists every stored version, newest first.
func (s *Store) ListProductIdentities(ctx context.Context, product uuid.UUID) ([]domain.ProductIdentity, error) {
	rows, err := s.q.ListProductIdentities(ctx, product)
	if err != nil {
		return nil, err
	}
	out := make([]domain.ProductIdentity, len(rows))
	for i, r := range rows {
		out[i] = identity(r)
	}
	return out, nil
}

func identity(r orgboarddb.ProductIdentity) domain.ProductIdentity {
	at := r.UpdatedAt
	return domain.ProductIdentity{ProductID: r.ProductID, Content: r.Content, Version: r.Version, UpdatedAt: &at, UpdatedBy: r.UpdatedBy}
}
