// Package idempotency makes retries of creating and paid requests safe: a request that carries
// an Idempotency-Key header (IETF httpapi draft "The Idempotency-Key HTTP Header Field") runs
// once per caller and key, and a retry with the same key and the same request gets the first
// answer again. The spec decides where it applies: an operation takes part iff it declares
// the Idempotency-Key header parameter.
//
// Keys are kept in PostgreSQL (Migrations), per caller: a user is a JWT subject in its tenant,
// a service is its token's name. A retry while the first request is in flight gets 409; the
// same key with another method, path, query or body gets 422. Final answers (2xx and 4xx but
// 408 and 429) are kept for the TTL; a 5xx, a panic or a broken request body releases the key,
// so the retry runs again.
package idempotency

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/idempotency/migrations"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// Header is the request header field that carries the key.
const Header = "Idempotency-Key"

// MaxKeyLength bounds a key (bytes of printable ASCII).
const MaxKeyLength = 255

// Migrations creates the key table (idempotency_keys), versioned in goose_idempotency. A
// service applies them next to its own:
//
//	pgxdb.Migrate(ctx, url, idempotency.Migrations(), service.Migrations)
func Migrations() pgxdb.Migrations {
	return pgxdb.Migrations{Name: "idempotency", FS: migrations.FS}
}

// Env is the idempotency part of a service's environment; a service embeds it in its
// configuration struct (pkg/config reads and documents it).
type Env struct {
	IdempotencyTTL           time.Duration `env:"IDEMPOTENCY_TTL" envDefault:"24h" desc:"how long the answer to a request sent with an Idempotency-Key is kept and replayed to retries; afterwards the key may be used again"`
	IdempotencyLockTimeout   time.Duration `env:"IDEMPOTENCY_LOCK_TIMEOUT" envDefault:"15m" desc:"how long a request in flight holds its Idempotency-Key (retries get 409 meanwhile); bounds how long an instance that stopped mid-request blocks the key"`
	IdempotencyPurgeInterval time.Duration `env:"IDEMPOTENCY_PURGE_INTERVAL" envDefault:"10m" desc:"how often expired Idempotency-Keys are deleted"`
}

// Options of New.
type Options struct {
	// TTL is how long a final answer is kept and replayed (24 h when 0).
	TTL time.Duration
	// LockTimeout is how long a request in flight holds its key (15 min when 0).
	LockTimeout time.Duration
	// MaxAnswer bounds the body of a stored answer; a larger answer is not stored and its key
	// is released (1 MiB when 0).
	MaxAnswer int
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Logger receives failures to release or store a key (slog.Default() when nil).
	Logger *slog.Logger
}

// KeyOptions are the Options of the environment.
func (e Env) KeyOptions(log *slog.Logger) Options {
	return Options{TTL: e.IdempotencyTTL, LockTimeout: e.IdempotencyLockTimeout, Logger: log}
}

// Keys stores idempotency keys and the answers they were given.
type Keys struct {
	pool *pgxpool.Pool
	opts Options
}

// New returns the key store on pool, whose database has Migrations applied.
func New(pool *pgxpool.Pool, opts Options) *Keys {
	if opts.TTL <= 0 {
		opts.TTL = 24 * time.Hour
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 15 * time.Minute
	}
	if opts.MaxAnswer <= 0 {
		opts.MaxAnswer = 1 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Keys{pool: pool, opts: opts}
}

// answer is a stored final answer.
type answer struct {
	Status  int
	Headers map[string]string
	Body    []byte
}

// record is the state of a key another request holds: in flight (no answer yet) or answered.
type record struct {
	fingerprint []byte
	answer      *answer
}

// claim takes the key for a new request, or reports what holds it. A key whose time is over
// (answered longer than TTL ago, or in flight longer than LockTimeout) is taken over.
func (k *Keys) claim(ctx context.Context, scope, key string) (claimedAt time.Time, held *record, err error) {
	for range 3 {
		now := k.opts.Now().UTC().Truncate(time.Microsecond)
		var taken bool
		err := k.pool.QueryRow(ctx, `
INSERT INTO idempotency_keys (scope, key, created_at, expires_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (scope, key) DO UPDATE
  SET fingerprint = NULL, status = NULL, headers = NULL, body = NULL,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
RETURNING true`, scope, key, now, now.Add(k.opts.LockTimeout)).Scan(&taken)
		if err == nil {
			return now, nil, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return time.Time{}, nil, fmt.Errorf("idempotency: claim a key: %w", err)
		}
		var (
			r      record
			status *int
			a      answer
		)
		err = k.pool.QueryRow(ctx, `
SELECT fingerprint, status, headers, body FROM idempotency_keys
WHERE scope = $1 AND key = $2 AND expires_at > $3`, scope, key, now).Scan(&r.fingerprint, &status, &a.Headers, &a.Body)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // released or expired in between: claim again
		}
		if err != nil {
			return time.Time{}, nil, fmt.Errorf("idempotency: read a key: %w", err)
		}
		if status != nil {
			a.Status = *status
			r.answer = &a
		}
		return time.Time{}, &r, nil
	}
	return time.Time{}, nil, errors.New("idempotency: the key changed hands three times while being claimed")
}

// complete stores the final answer of the request that claimed the key at claimedAt.
func (k *Keys) complete(ctx context.Context, scope, key string, claimedAt time.Time, fingerprint []byte, a answer) error {
	expires := k.opts.Now().UTC().Add(k.opts.TTL)
	_, err := k.pool.Exec(ctx, `
UPDATE idempotency_keys SET fingerprint = $4, status = $5, headers = $6, body = $7, expires_at = $8
WHERE scope = $1 AND key = $2 AND created_at = $3 AND status IS NULL`,
		scope, key, claimedAt, fingerprint, a.Status, a.Headers, a.Body, expires)
	if err != nil {
		return fmt.Errorf("idempotency: store an answer: %w", err)
	}
	return nil
}

// release frees the key the request claimed at claimedAt, so a retry runs again.
func (k *Keys) release(ctx context.Context, scope, key string, claimedAt time.Time) error {
	_, err := k.pool.Exec(ctx, `
DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND created_at = $3 AND status IS NULL`,
		scope, key, claimedAt)
	if err != nil {
		return fmt.Errorf("idempotency: release a key: %w", err)
	}
	return nil
}

// purgeBatch bounds one delete of Purge, so it never holds many row locks at once.
const purgeBatch = 1000

// Purge deletes the keys whose time is over, a bounded batch per statement, and returns how
// many it deleted.
func (k *Keys) Purge(ctx context.Context) (int64, error) {
	var total int64
	for {
		tag, err := k.pool.Exec(ctx, `
DELETE FROM idempotency_keys WHERE (scope, key) IN (
  SELECT scope, key FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
			k.opts.Now().UTC(), purgeBatch)
		if err != nil {
			return total, fmt.Errorf("idempotency: purge expired keys: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeBatch {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// RunPurger purges expired keys every interval until ctx ends.
func (k *Keys) RunPurger(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = 10 * time.Minute
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := k.Purge(ctx); err != nil && ctx.Err() == nil {
			k.opts.Logger.WarnContext(ctx, "purging expired idempotency keys", slog.String("error", err.Error()))
		} else if n > 0 {
			k.opts.Logger.DebugContext(ctx, "purged expired idempotency keys", slog.Int64("deleted", n))
		}
	}
}
