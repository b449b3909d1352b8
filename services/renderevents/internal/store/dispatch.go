package store

import (
	"context"
	"sync"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Dispatching is the store as one dispatcher uses it: the signing secrets it opens are kept, so
// that every claim of deliveries to the same endpoints does not decrypt them again.
type Dispatching struct {
	*Store
	opened *openedSecrets
}

// ForDispatcher returns the store for one dispatcher.
func (s *Store) ForDispatcher() *Dispatching {
	return &Dispatching{Store: s, opened: &openedSecrets{open: s.openSecret, bySlot: map[secretSlot]openedSecret{}}}
}

// DispatchTargets implements domain.DispatchStore. An opened secret is used again only while the
// endpoint's row holds the very sealed bytes it was opened from: a rotation writes new ones (the
// new secret, and the old one's as previous_secret), which are opened afresh; a deleted
// endpoint's secrets are forgotten when a claim meets it.
func (d *Dispatching) DispatchTargets(ctx context.Context, endpoints []uuid.UUID) (map[uuid.UUID]domain.DispatchTarget, error) {
	return d.dispatchTargets(ctx, endpoints, d.opened.get, d.opened.forget)
}

// maxOpenedSecrets bounds the secrets kept (two per endpoint during a rotation's overlap):
// past it they are all dropped and opened again as claims need them.
const maxOpenedSecrets = 8192

// secretSlot names one of an endpoint's two secrets.
type secretSlot struct {
	endpoint uuid.UUID
	previous bool
}

// openedSecret is a secret as stored (sealed) and opened (plain).
type openedSecret struct {
	sealed, plain string
}

// openedSecrets keeps the plain secrets open returned, each with the sealed value it came from.
// They stay in memory only, as the dispatch targets holding them do, and are never logged.
type openedSecrets struct {
	open secretOpener

	mu     sync.Mutex
	bySlot map[secretSlot]openedSecret
}

// get is open, remembering what it opened for the same sealed value of the same slot.
func (o *openedSecrets) get(endpoint uuid.UUID, sealed []byte, previous bool) (string, error) {
	slot := secretSlot{endpoint: endpoint, previous: previous}
	o.mu.Lock()
	kept, ok := o.bySlot[slot]
	o.mu.Unlock()
	if ok && kept.sealed == string(sealed) {
		return kept.plain, nil
	}
	plain, err := o.open(endpoint, sealed, previous)
	if err != nil {
		return "", err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.bySlot) >= maxOpenedSecrets {
		clear(o.bySlot)
	}
	o.bySlot[slot] = openedSecret{sealed: string(sealed), plain: plain}
	return plain, nil
}

// forget drops an endpoint's secrets.
func (o *openedSecrets) forget(endpoint uuid.UUID) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.bySlot, secretSlot{endpoint: endpoint})
	delete(o.bySlot, secretSlot{endpoint: endpoint, previous: true})
}
