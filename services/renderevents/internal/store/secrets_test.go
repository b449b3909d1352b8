package store_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/internal/store"
)

func randomKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, seal.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func ringOf(t *testing.T, spec string) *seal.Keyring {
	t.Helper()
	ring, err := seal.ParseKeyring(spec)
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

func storedSecrets(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) (secret, previous []byte) {
	t.Helper()
	if err := pool.QueryRow(context.Background(), "SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1", id).
		Scan(&secret, &previous); err != nil {
		t.Fatal(err)
	}
	return secret, previous
}

func endpoint(secret string) domain.Endpoint {
	now := time.Now().UTC().Truncate(time.Microsecond)
	return domain.Endpoint{ID: uuid.New(), TenantID: uuid.New(), URL: "https://hooks.example.com/in",
		EventTypes: []string{"render.job.completed.v1"}, Enabled: true, Secret: secret, CreatedAt: now, UpdatedAt: now}
}

func TestSigningSecretsAreStoredSealedAndBoundToTheirEndpoint(t *testing.T) {
	ctx := context.Background()
	_, pool := newStore(t)
	ring := seal.Ephemeral()
	s := store.New(pool, ring)

	const first, second = "whsec_Zmlyc3Qtc2VjcmV0LW9mLXRoZS1lbmRwb2ludA==", "whsec_c2Vjb25kLXNlY3JldC1vZi10aGUtZW5kcG9pbnQ="
	ep, err := s.CreateEndpoint(ctx, endpoint(first))
	if err != nil {
		t.Fatal(err)
	}
	if ep.Secret != first {
		t.Fatalf("the created endpoint carries %q", ep.Secret)
	}
	now := time.Now().UTC()
	if _, err := s.RotateSecret(ctx, ep.ID, second, now.Add(domain.SecretOverlap), now); err != nil {
		t.Fatal(err)
	}
	secret, previous := storedSecrets(t, pool, ep.ID)
	for name, c := range map[string]struct {
		stored []byte
		plain  string
	}{"secret": {secret, second}, "previous_secret": {previous, first}} {
		if bytes.Contains(c.stored, []byte(c.plain)) || bytes.Contains(c.stored, []byte(c.plain[len(domain.SecretPrefix):])) {
			t.Fatalf("%s is stored in the clear: %q", name, c.stored)
		}
		if got, err := ring.Open(c.stored, "webhook:"+ep.ID.String()); err != nil || string(got) != c.plain {
			t.Fatalf("%s does not open bound to its endpoint: %q, %v", name, got, err)
		}
		if _, err := ring.Open(c.stored, "webhook:"+uuid.NewString()); !errors.Is(err, seal.ErrOpen) {
			t.Fatalf("%s opens bound to another endpoint: %v", name, err)
		}
	}

	// The dispatcher reads both to sign deliveries during the overlap.
	targets, err := s.DispatchTargets(ctx, []uuid.UUID{ep.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := targets[ep.ID].Endpoint; got.Secret != second || got.PreviousSecret != first {
		t.Fatalf("dispatch target secrets = %q, %q", got.Secret, got.PreviousSecret)
	}

	// A sealed secret copied into another endpoint's row does not open there.
	other, err := s.CreateEndpoint(ctx, endpoint("whsec_b3RoZXI="))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE webhook_endpoints SET secret = $1 WHERE id = $2", secret, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetEndpoint(ctx, other.ID); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("a secret moved to another endpoint opened: %v", err)
	}
}

func TestTheDatabaseRefusesASigningSecretInTheClear(t *testing.T) {
	ctx := context.Background()
	s, pool := newStore(t)
	ep, err := s.CreateEndpoint(ctx, endpoint("whsec_c2VhbGVk"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"UPDATE webhook_endpoints SET secret = 'whsec_plain'::bytea WHERE id = $1",
		"UPDATE webhook_endpoints SET previous_secret = 'whsec_plain'::bytea WHERE id = $1",
	} {
		_, err := pool.Exec(ctx, stmt, ep.ID)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != pgxdb.CodeCheckViolation {
			t.Fatalf("%s: err = %v, want a check violation", stmt, err)
		}
	}
}

// legacyBox seals like the single-key box that preceded the keyring: "v1:" | nonce | ciphertext.
func legacyBox(t *testing.T, key []byte, plain string) []byte {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return aead.Seal(append([]byte("v1:"), nonce...), nonce, []byte(plain), nil)
}

func TestSecretsWrittenBeforeTheKeyringAreResealedBoundToTheirEndpoint(t *testing.T) {
	ctx := context.Background()
	_, pool := newStore(t)
	oldKey, newKey, lostKey := randomKey(t), randomKey(t), randomKey(t)
	b64 := base64.StdEncoding.EncodeToString
	s := store.New(pool, ringOf(t, "new:"+b64(newKey)+",old:"+b64(oldKey)))

	type row struct {
		id                       uuid.UUID
		secret, previous         []byte
		wantSecret, wantPrevious string
	}
	inClear := row{id: uuid.New(), secret: []byte("whsec_Y2xlYXI="), wantSecret: "whsec_Y2xlYXI="}
	boxed := row{id: uuid.New(), secret: legacyBox(t, oldKey, "whsec_Ym94ZWQ="), previous: []byte("whsec_cHJldg=="),
		wantSecret: "whsec_Ym94ZWQ=", wantPrevious: "whsec_cHJldg=="}
	lost := row{id: uuid.New(), secret: legacyBox(t, lostKey, "whsec_bG9zdA==")}
	// Rows as the database held them before the rule that secrets are sealed.
	err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_secrets_sealed"); err != nil {
			return err
		}
		for _, r := range []row{inClear, boxed, lost} {
			if _, err := tx.Exec(ctx, `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, previous_secret, created_at, updated_at)
				VALUES ($1, $2, 'https://hooks.example.com/in', '{}', $3, $4, now(), now())`, r.id, uuid.New(), r.secret, r.previous); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secrets_sealed CHECK (
			substring(secret FROM 1 FOR 1) = '\x01'::bytea
			AND (previous_secret IS NULL OR substring(previous_secret FROM 1 FOR 1) = '\x01'::bytea)) NOT VALID`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	resealed, unreadable, err := s.SealLegacySecrets(ctx)
	if err != nil || resealed != 2 || unreadable != 1 {
		t.Fatalf("SealLegacySecrets = %d resealed, %d unreadable, %v; want 2, 1", resealed, unreadable, err)
	}
	for _, r := range []row{inClear, boxed} {
		secret, previous := storedSecrets(t, pool, r.id)
		if kid, _ := seal.KeyID(secret); kid != "new" || bytes.Contains(secret, []byte("whsec_")) {
			t.Fatalf("secret not re-sealed under the primary key: %q", secret)
		}
		if (previous == nil) != (r.previous == nil) || bytes.Contains(previous, []byte("whsec_")) {
			t.Fatalf("previous secret not re-sealed: %q", previous)
		}
		ep, err := s.GetEndpoint(ctx, r.id)
		if err != nil || ep.Secret != r.wantSecret || ep.PreviousSecret != r.wantPrevious {
			t.Fatalf("endpoint %s opens as %q/%q, %v", r.id, ep.Secret, ep.PreviousSecret, err)
		}
	}
	if secret, _ := storedSecrets(t, pool, lost.id); !bytes.Equal(secret, lost.secret) {
		t.Fatal("a secret no key opens was changed")
	}
	if resealed, unreadable, err := s.SealLegacySecrets(ctx); err != nil || resealed != 0 || unreadable != 1 {
		t.Fatalf("a second run = %d, %d, %v; want nothing left to re-seal", resealed, unreadable, err)
	}
}
