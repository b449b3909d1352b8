package app

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/errs"
)

// Service token scopes of this service.
const (
	ScopeRead  = "renderevents:read"
	ScopeWrite = "renderevents:write"
)

// access is what a caller may see: every tenant (tenant nil) or one.
type access struct {
	p      auth.Principal
	tenant *uuid.UUID
}

// caller checks the principal of ctx for a read (write false) or a write, with the
// tenant_id query parameter when given, and returns the tenant filter that applies:
//
//   - a ServiceToken needs renderevents:read (reads) or renderevents:write (writes); it
//     sees every tenant, or the tenant it is bound to;
//   - a JWT with the admin role sees every tenant; tenant_id narrows it;
//   - any other JWT sees its own tenant; passing tenant_id is forbidden.
func caller(ctx context.Context, requested *uuid.UUID, write bool) (access, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return access{}, errs.E(errs.Unauthenticated, "a bearer token is required")
	}
	a := access{p: p}
	switch {
	case p.Kind == auth.Service:
		scope := ScopeRead
		if write {
			scope = ScopeWrite
		}
		if !p.HasScope(scope) {
			return access{}, errs.Ef(errs.Forbidden, "the service token lacks scope %s", scope)
		}
		if p.TenantID != uuid.Nil {
			if requested != nil && *requested != p.TenantID {
				return access{}, errs.E(errs.Forbidden, "the service token is bound to another tenant")
			}
			t := p.TenantID
			a.tenant = &t
			return a, nil
		}
		a.tenant = requested
	case p.HasRole(auth.AdminRole):
		a.tenant = requested
	default:
		if requested != nil {
			return access{}, errs.E(errs.Forbidden, "only an admin or a service token may pass tenant_id")
		}
		t := p.TenantID
		a.tenant = &t
	}
	return a, nil
}

// sees reports whether the caller may see a resource of tenant; callers that may not
// get 404, as if it were absent.
func (a access) sees(tenant uuid.UUID) bool { return a.tenant == nil || *a.tenant == tenant }

func (a access) seesAll() bool { return a.tenant == nil }

// notFound is the answer for a resource the caller may not see.
func notFound(what string) error { return errs.E(errs.NotFound, what+" not found") }

// Page asks for one page of a list.
type Page struct {
	Limit int
	After *CursorKey
}

// CursorKey is the sort key of the last row of a page.
type CursorKey struct {
	Time *time.Time `json:"t,omitempty"`
	Text *string    `json:"s,omitempty"`
	ID   uuid.UUID  `json:"i"`
}

type cursorDoc struct {
	Key     CursorKey `json:"k"`
	Filters string    `json:"f"`
}

// DefaultLimit and MaxLimit bound list pages.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// page reads the limit and cursor of a list request. A cursor is bound to the filters of
// the request that produced it.
func page(limit *int, cursor *string, filters any) (Page, string, error) {
	p := Page{Limit: DefaultLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxLimit {
			return Page{}, "", errs.InvalidFields(errs.Field("query.limit", fmt.Sprintf("must be 1 to %d", MaxLimit)))
		}
		p.Limit = *limit
	}
	fp := filterPrint(filters)
	if cursor != nil && *cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(*cursor)
		var doc cursorDoc
		if err != nil || json.Unmarshal(raw, &doc) != nil {
			return Page{}, "", errs.InvalidFields(errs.Field("query.cursor", "is not a cursor of this list"))
		}
		if doc.Filters != fp {
			return Page{}, "", errs.InvalidFields(errs.Field("query.cursor", "was made for other filters"))
		}
		p.After = &doc.Key
	}
	return p, fp, nil
}

func filterPrint(filters any) string {
	b, _ := json.Marshal(filters)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// nextCursor returns the cursor after key, or nil when the page was the last one.
func nextCursor(more bool, fp string, key CursorKey) *string {
	if !more {
		return nil
	}
	b, _ := json.Marshal(cursorDoc{Key: key, Filters: fp})
	s := base64.RawURLEncoding.EncodeToString(b)
	return &s
}

// trim cuts a page fetched with Limit+1 rows and tells whether more rows follow.
// visible reads one tenant-owned record for the caller (write: the caller may change it). A
// record of a tenant the caller may not see is reported absent (404), exactly like a missing
// one, so other tenants learn nothing.
func visible[T any](ctx context.Context, write bool, what string, read func() (T, error), tenantOf func(T) uuid.UUID) (T, error) {
	var zero T
	a, err := caller(ctx, nil, write)
	if err != nil {
		return zero, err
	}
	v, err := read()
	if err != nil {
		return zero, err
	}
	if !a.sees(tenantOf(v)) {
		return zero, notFound(what)
	}
	return v, nil
}

// pageResult trims rows (fetched with one extra) to the page and makes the cursor that
// continues after its last row; the cursor is nil on the last page.
func pageResult[T any](rows []T, p Page, fp string, keyOf func(last T) CursorKey) ([]T, *string) {
	rows, more := trim(rows, p.Limit)
	var key CursorKey
	if more {
		key = keyOf(rows[len(rows)-1])
	}
	return rows, nextCursor(more, fp, key)
}

func trim[T any](rows []T, limit int) ([]T, bool) {
	if len(rows) > limit {
		return rows[:limit], true
	}
	return rows, false
}
