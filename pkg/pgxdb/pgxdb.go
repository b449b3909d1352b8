// Package pgxdb opens PostgreSQL pools, applies a service's embedded goose migrations, runs
// transactions and translates database errors into errs kinds. Every service keeps its own
// database; nothing here knows their tables.
package pgxdb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// PoolOption adjusts the pool's configuration before the pool is opened.
type PoolOption func(*pgxpool.Config)

// MaxConns bounds the pool's connections; 0 leaves pgx's own bound.
func MaxConns(n int32) PoolOption {
	return func(c *pgxpool.Config) {
		if n > 0 {
			c.MaxConns = n
		}
	}
}

// Open connects a pool to url, configured by opts, and checks that the database answers.
// Its queries are spans of the traces they run in (Tracer).
func Open(ctx context.Context, url string, opts ...PoolOption) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	cfg.ConnConfig.Tracer = Tracer{}
	for _, o := range opts {
		o(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return pool, nil
}

// Migrations is one set of goose SQL migrations at the root of FS. Each set keeps its own
// version table (goose_<Name>), so a shared library (the bus's outbox and inbox) and a
// service can version their schemas independently in one database.
type Migrations struct {
	Name string
	FS   fs.FS
}

// Migrate applies every set in order under a PostgreSQL advisory lock, so the migrate init
// containers of pods starting together, or a development start racing them, apply each
// migration once: the others wait for the lock, then find the schema applied.
func Migrate(ctx context.Context, url string, sets ...Migrations) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return fmt.Errorf("open database for migrations: %w", err)
	}
	defer db.Close()
	return MigrateDB(ctx, db, slog.Default(), sets...)
}

// MigrateDB is Migrate on an open *sql.DB.
func MigrateDB(ctx context.Context, db *sql.DB, log *slog.Logger, sets ...Migrations) error {
	for _, set := range sets {
		// Pods starting together wait for the one migrating: the lock is probed every second
		// for up to ten minutes.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 600))
		if err != nil {
			return err
		}
		p, err := goose.NewProvider(goose.DialectPostgres, db, set.FS,
			goose.WithTableName("goose_"+set.Name),
			goose.WithSessionLocker(locker),
			goose.WithDisableGlobalRegistry(true),
		)
		if err != nil {
			return fmt.Errorf("migrations %s: %w", set.Name, err)
		}
		results, err := p.Up(ctx)
		if err != nil {
			return fmt.Errorf("migrations %s: %w", set.Name, err)
		}
		for _, r := range results {
			log.InfoContext(ctx, "migration applied", "set", set.Name, "version", r.Source.Version, "duration", r.Duration)
		}
	}
	return nil
}

// SQLDB exposes a pool as *sql.DB for libraries that need database/sql.
func SQLDB(pool *pgxpool.Pool) *sql.DB { return stdlib.OpenDBFromPool(pool) }

// WithTx runs fn in a transaction: committed when fn returns nil, rolled back when it
// returns an error or panics. The transaction begins with fn's first statement, in its round
// trip (Begin).
func WithTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	return WithTxOptions(ctx, pool, pgx.TxOptions{}, fn)
}

// WithTxOptions is WithTx for a transaction begun with opts (an isolation level, read-only, or
// a BeginQuery that sets transaction-local settings in the BEGIN's round trip).
func WithTxOptions(ctx context.Context, pool *pgxpool.Pool, opts pgx.TxOptions, fn func(pgx.Tx) error) (err error) {
	tx, err := Begin(ctx, pool, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback(ctx)
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback(ctx)
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
