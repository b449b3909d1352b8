package store

import (
	"bytes"
	"context"
	"fmt"

	"github.com/google/uuid"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// secretBinding binds a sealed signing secret to its endpoint: copied into another endpoint's
// row, it does not open.
func secretBinding(endpoint uuid.UUID) string { return "webhook:" + endpoint.String() }

func (s *Store) sealSecret(endpoint uuid.UUID, secret string) ([]byte, error) {
	sealed, err := s.ring.Seal([]byte(secret), secretBinding(endpoint))
	if err != nil {
		return nil, fmt.Errorf("seal the signing secret of webhook endpoint %s: %w", endpoint, err)
	}
	return sealed, nil
}

// secretOpener opens the sealed current (or, when previous, the previous) signing secret of an
// endpoint.
type secretOpener func(endpoint uuid.UUID, sealed []byte, previous bool) (string, error)

func (s *Store) openSecret(endpoint uuid.UUID, sealed []byte, _ bool) (string, error) {
	plain, err := s.ring.Open(sealed, secretBinding(endpoint))
	if err != nil {
		return "", fmt.Errorf("open the signing secret of webhook endpoint %s: %w", endpoint, err)
	}
	return string(plain), nil
}

// legacyBoxPrefix starts a secret in the single-key format: "v1:" | 12-byte nonce | AES-256-GCM
// ciphertext, without key id or binding.
var legacyBoxPrefix = []byte("v1:")

// SealLegacySecrets moves signing secrets into the keyring's format, bound to their endpoint:
// secrets stored in the clear, and secrets in the single-key format, which open with any key of
// the ring (so that single key belongs in SEAL_KEYS until they are moved). It
// returns how many endpoints it re-sealed and how many hold a secret no key opens. Safe to run
// from every instance at once: each row is replaced only if it is still the one read.
func (s *Store) SealLegacySecrets(ctx context.Context) (resealed, unreadable int, err error) {
	rows, err := s.q.ListEndpointsWithLegacySecrets(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("list legacy webhook secrets: %w", err)
	}
	for _, r := range rows {
		secret, err := s.resealLegacy(r.ID, r.Secret)
		if err != nil {
			unreadable++
			continue
		}
		var previous []byte
		if r.PreviousSecret != nil {
			if previous, err = s.resealLegacy(r.ID, r.PreviousSecret); err != nil {
				unreadable++
				continue
			}
		}
		n, err := s.q.ResealEndpointSecrets(ctx, db.ResealEndpointSecretsParams{ID: r.ID, Secret: secret,
			PreviousSecret: previous, OldSecret: r.Secret, OldPreviousSecret: r.PreviousSecret})
		if err != nil {
			return resealed, unreadable, fmt.Errorf("re-seal webhook secrets: %w", err)
		}
		resealed += int(n)
	}
	return resealed, unreadable, nil
}

// resealLegacy returns stored in the keyring's format: as it is when it already is, sealed
// when it is in the clear or in the single-key box's format.
func (s *Store) resealLegacy(endpoint uuid.UUID, stored []byte) ([]byte, error) {
	if _, err := seal.KeyID(stored); err == nil {
		return stored, nil
	}
	var plain []byte
	switch {
	case bytes.HasPrefix(stored, []byte(domain.SecretPrefix)):
		plain = stored
	case bytes.HasPrefix(stored, legacyBoxPrefix):
		var err error
		if plain, err = s.ring.OpenUnbound(stored[len(legacyBoxPrefix):]); err != nil {
			return nil, err
		}
	default:
		return nil, seal.ErrOpen
	}
	return s.sealSecret(endpoint, string(plain))
}
