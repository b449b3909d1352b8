package domain

import (
	"time"

	"github.com/google/uuid"
)

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

// ReadStore is what the read API needs from the store, one port per resource group.
type ReadStore interface {
	JobReadStore
	SnapshotStore
	TenantStore
	UsageStore
	RefundStore
}
