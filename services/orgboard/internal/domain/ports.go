package domain

import "context"

// Store is the persistence the application needs. A lookup of a missing row returns a NotFound
// error; unique and reference violations come back as Conflict or Invalid errors naming the
// field.
type Store interface {
	// InTx runs fn with a Store bound to one transaction: committed when fn returns nil, rolled
	// back otherwise.
	InTx(ctx context.Context, fn func(Store) error) error
	// Pipeline runs fn, inside a transaction, with a Store whose writes are queued and sent
	// together in one round trip, with the transaction's next statement or with its COMMIT: for
	// the last writes of a change (the change, its audit entry, its event), whose outcome is
	// their error alone. The first write that fails is the error of that statement or of the
	// transaction's commit, untranslated; a read through the Store fn is given first sends the
	// writes queued before it, and sees them.
	Pipeline(ctx context.Context, fn func(Store) error) error

	AccessStore
	AuditStore
	EventStore
	OrganizationStore
	StructureStore
	TeamStore
	SeatStore
	TaskStore
	AgentStore
	ProfileStore
	ConnectionStore
	ToolServerStore
	RunStore
	BlockStore
}

// Sealer seals secrets at rest (model keys, tool-server headers). binding ties a sealed value
// to the record it belongs to, so it cannot be opened as another record's secret.
type Sealer interface {
	Seal(plain []byte, binding string) ([]byte, error)
	Open(sealed []byte, binding string) ([]byte, error)
}

// URLPolicy decides which URLs an organization may register for the service to call (tool
// servers, model endpoints), so that a tenant cannot reach internal addresses.
type URLPolicy interface {
	// CheckURL returns why raw may not be called, or nil.
	CheckURL(ctx context.Context, raw string) error
}
