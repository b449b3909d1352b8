package app

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// DefaultLimit and MaxLimit bound list pages.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

type cursorDoc struct {
	Key     domain.CursorKey `json:"k"`
	Filters string           `json:"f"`
}

// page reads the limit and cursor of a list request. A cursor is bound to the filters of
// the request that produced it.
func page(limit *int, cursor *string, filters any) (domain.Page, string, error) {
	p := domain.Page{Limit: DefaultLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxLimit {
			return domain.Page{}, "", errs.InvalidFields(errs.Field("query.limit", fmt.Sprintf("must be 1 to %d", MaxLimit)))
		}
		p.Limit = *limit
	}
	fp := filterPrint(filters)
	if cursor != nil && *cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(*cursor)
		var doc cursorDoc
		if err != nil || json.Unmarshal(raw, &doc) != nil {
			return domain.Page{}, "", errs.InvalidFields(errs.Field("query.cursor", "is not a cursor of this list"))
		}
		if doc.Filters != fp {
			return domain.Page{}, "", errs.InvalidFields(errs.Field("query.cursor", "was made for other filters"))
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
func nextCursor(more bool, fp string, key domain.CursorKey) *string {
	if !more {
		return nil
	}
	b, _ := json.Marshal(cursorDoc{Key: key, Filters: fp})
	s := base64.RawURLEncoding.EncodeToString(b)
	return &s
}

// pageResult trims rows (fetched with one extra) to the page and makes the cursor that
// continues after its last row; the cursor is nil on the last page.
func pageResult[T any](rows []T, p domain.Page, fp string, keyOf func(last T) domain.CursorKey) ([]T, *string) {
	rows, more := trim(rows, p.Limit)
	var key domain.CursorKey
	if more {
		key = keyOf(rows[len(rows)-1])
	}
	return rows, nextCursor(more, fp, key)
}

// trim cuts a page fetched with Limit+1 rows and tells whether more rows follow.
func trim[T any](rows []T, limit int) ([]T, bool) {
	if len(rows) > limit {
		return rows[:limit], true
	}
	return rows, false
}

// ListParams are the common parameters of a list request.
type ListParams struct {
	TenantID *uuid.UUID
	Cursor   *string
	Limit    *int
}
