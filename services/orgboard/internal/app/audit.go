package app

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// DefaultAuditLimit and MaxAuditLimit bound an audit page.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 100
)

// ListAudit returns a page of an organization's audit entries, newest first (ViewAuditLog:
// Owners only).
func (a *App) ListAudit(ctx context.Context, actor domain.Actor, f domain.AuditFilter) (domain.AuditPage, error) {
	switch {
	case f.Limit == 0:
		f.Limit = DefaultAuditLimit
	case f.Limit < 1 || f.Limit > MaxAuditLimit:
		return domain.AuditPage{}, errs.InvalidFields(errs.Field("query.limit", "must be between 1 and 100"))
	}
	s := a.store
	if _, err := a.authorizeOrg(ctx, s, actor, f.OrganizationID, domain.ViewAuditLog); err != nil {
		return domain.AuditPage{}, err
	}
	return s.ListAudit(ctx, f)
}

// EncodeAuditCursor makes the opaque cursor string of c.
func EncodeAuditCursor(c domain.AuditCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.At.UTC().Format(time.RFC3339Nano) + "|" + c.ID.String()))
}

// DecodeAuditCursor parses a cursor made by EncodeAuditCursor; anything else is a 400.
func DecodeAuditCursor(s string) (*domain.AuditCursor, error) {
	bad := errs.InvalidFields(errs.Field("query.cursor", "is not a cursor of this list"))
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	at, id, ok := strings.Cut(string(raw), "|")
	if !ok {
		return nil, bad
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, bad
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return nil, bad
	}
	return &domain.AuditCursor{At: t, ID: u}, nil
}
