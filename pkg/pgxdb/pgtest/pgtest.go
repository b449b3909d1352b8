// Package pgtest gives each test its own PostgreSQL database on the real server, cloned
// from a template that was migrated once per distinct set of migrations. Tests never share
// state and never need a reset script.
package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
)

// DefaultAdminURL is the maintenance connection used when PG_TEST_URL is not set.
const DefaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL is the connection tests use to create and drop databases.
func AdminURL() string {
	if u := os.Getenv("PG_TEST_URL"); u != "" {
		return u
	}
	return DefaultAdminURL
}

var templates sync.Map // template name -> *sync.Once-guarded result

type templateResult struct {
	once sync.Once
	err  error
}

// NewDB creates a fresh database migrated with sets, returns a pool on it and its URL,
// and drops it when the test ends.
func NewDB(t testing.TB, sets ...pgxdb.Migrations) (*pgxpool.Pool, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	tpl, err := ensureTemplate(ctx, sets)
	if err != nil {
		t.Fatalf("pgtest: template database: %v", err)
	}
	name := "t_" + strings32(uuid.NewString())
	if err := adminExec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", pgx.Identifier{name}.Sanitize(), pgx.Identifier{tpl}.Sanitize())); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	dbURL := withDatabase(AdminURL(), name)
	pool, err := pgxdb.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("pgtest: open %s: %v", name, err)
	}
	t.Cleanup(func() {
		pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := adminExec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize())); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	return pool, dbURL
}

// ensureTemplate migrates a template database named after the content of the migrations,
// once per process; concurrent test binaries serialise on an advisory lock.
func ensureTemplate(ctx context.Context, sets []pgxdb.Migrations) (string, error) {
	sum, err := digest(sets)
	if err != nil {
		return "", err
	}
	name := "tpl_" + sum[:24]
	v, _ := templates.LoadOrStore(name, &templateResult{})
	res := v.(*templateResult)
	res.once.Do(func() { res.err = buildTemplate(ctx, name, sets) })
	return name, res.err
}

func buildTemplate(ctx context.Context, name string, sets []pgxdb.Migrations) error {
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return fmt.Errorf("connect %s: %w (is PostgreSQL running? `make deps` starts it)", AdminURL(), err)
	}
	defer conn.Close(ctx)
	// One builder at a time across test binaries; the others find the template ready.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtext($1))", name); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext($1))", name) //nolint:errcheck

	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := name + "_b"
	_, _ = conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{building}.Sanitize()))
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s", pgx.Identifier{building}.Sanitize())); err != nil {
		return err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := pgxdb.Open(ctx, withDatabase(AdminURL(), building))
	if err != nil {
		return err
	}
	sqlDB := pgxdb.SQLDB(db)
	err = pgxdb.MigrateDB(ctx, sqlDB, quiet, sets...)
	sqlDB.Close()
	db.Close()
	if err != nil {
		return err
	}
	// Rename after migrating so a half-built template is never used.
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", pgx.Identifier{building}.Sanitize(), pgx.Identifier{name}.Sanitize())); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH IS_TEMPLATE true", pgx.Identifier{name}.Sanitize()))
	return err
}

// digest hashes every migration file of every set, so any change gives a new template.
func digest(sets []pgxdb.Migrations) (string, error) {
	h := sha256.New()
	for _, set := range sets {
		fmt.Fprintf(h, "set:%s\n", set.Name)
		var names []string
		err := fs.WalkDir(set.FS, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				names = append(names, path)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := fs.ReadFile(set.FS, n)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "file:%s:%d\n", n, len(b))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func adminExec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func withDatabase(raw, db string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path = "/" + db
	return u.String()
}

// strings32 keeps a uuid's hex digits, which are safe in an identifier.
func strings32(s string) string {
	out := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		if s[i] != '-' {
			out = append(out, s[i])
		}
	}
	return string(out)
}
