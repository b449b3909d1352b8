package domain

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Division belongs to an organization.
type Division struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	Description    string
	CreatedAt      time.Time
}

// ProductKind is Product or Service.
type ProductKind string

// The product kinds.
const (
	KindProduct ProductKind = "Product"
	KindService ProductKind = "Service"
)

// Product is a product or service, optionally in a division of the same organization.
type Product struct {
	ID              uuid.UUID
	OrganizationID  uuid.UUID
	DivisionID      *uuid.UUID
	Name            string
	Kind            ProductKind
	Description     string
	IdentityVersion int64
	CreatedAt       time.Time
}

// MaxIdentityChars bounds a product identity text (characters, not bytes).
const MaxIdentityChars = 65536

// ProductIdentity is one version of a product's PRODUCT.md-style brief. Version 0 is the
// never-set identity (empty content, no author).
type ProductIdentity struct {
	ProductID uuid.UUID
	Content   string
	Version   int64
	UpdatedAt *time.Time
	UpdatedBy *uuid.UUID
}

// CheckIdentity validates an identity write: the size bound and, when base is given, that it is
// the current version (optimistic concurrency).
func CheckIdentity(content string, base *int64, current int64) error {
	if !utf8.ValidString(content) {
		return errs.InvalidFields(errs.Field("body.content", "must be valid UTF-8"))
	}
	if n := utf8.RuneCountInString(content); n > MaxIdentityChars {
		return errs.InvalidFields(errs.Field("body.content", "must be at most 65536 characters"))
	}
	if base != nil && *base != current {
		return errs.Ef(errs.Conflict, "the identity is at version %d, not %d", current, *base)
	}
	return nil
}

// StructureStore keeps divisions, products and product identities.
type StructureStore interface {
	InsertDivision(ctx context.Context, d Division) error
	ListDivisions(ctx context.Context, org uuid.UUID) ([]Division, error)
	DivisionInOrganization(ctx context.Context, org, id uuid.UUID) (bool, error)
	ProductInOrganization(ctx context.Context, org, id uuid.UUID) (bool, error)
	InsertProduct(ctx context.Context, p Product) error
	GetProduct(ctx context.Context, id uuid.UUID) (Product, error)
	GetProductForUpdate(ctx context.Context, id uuid.UUID) (Product, error)
	ListProducts(ctx context.Context, org uuid.UUID, division *uuid.UUID, kind *ProductKind) ([]Product, error)
	// AppendProductIdentity writes a new identity version; an existing version is a Conflict.
	AppendProductIdentity(ctx context.Context, id ProductIdentity) error
	GetProductIdentity(ctx context.Context, product uuid.UUID, version int64) (ProductIdentity, error)
	ListProductIdentities(ctx context.Context, product uuid.UUID) ([]ProductIdentity, error)
}
