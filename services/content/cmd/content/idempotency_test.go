package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/httpapi"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/migrations"
)

func TestARetriedCategoryCreationWithOneIdempotencyKeyCreatesOneCategory(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var c Config
	if err := config.Load(&c); err != nil {
		t.Fatal(err)
	}
	_, c.DatabaseURL = pgtest.NewDB(t, migrations.Sets()...)
	c.MigrateOnStart = false
	pool, err := openPool(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Categories never touch the object storage: the client is built, never used.
	objects, err := store.NewS3(store.S3Config{Endpoint: c.S3Endpoint, Region: c.S3Region, AccessKey: c.S3AccessKey,
		SecretKey: c.S3SecretKey, PartSize: c.S3PartSize, Concurrency: c.S3Concurrency})
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(c, pool, objects, log)
	if err != nil {
		t.Fatal(err)
	}
	issuer := authtest.New(t)
	issuer.Configure(&c.Common)
	authn, err := auth.FromConfig(c.Common)
	if err != nil {
		t.Fatal(err)
	}
	e, err := httpapi.NewHTTP(a, httpapi.HTTPOptions{Auth: authn, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := withIdempotency(ctx, &wg, e, pool, c, log); err != nil {
		t.Fatal(err)
	}
	spec, err := contentserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client, err := content.NewClientWithResponses(httpxtest.Start(t, e)+httpapi.BasePath,
		content.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}

	admin := authtest.Bearer(issuer.Token(t, authtest.Subject(uuid.New()), authtest.Tenant(uuid.New()), authtest.Roles("platform-admin")))
	key := uuid.NewString()
	slug, name := "retried", "Retried"
	var ids []uuid.UUID
	for range 2 {
		// Without the key the second request would be 409 (the slug is taken).
		r, err := client.CreateCategoryWithResponse(ctx, &content.CreateCategoryParams{IdempotencyKey: &key},
			content.Category{Slug: &slug, Name: &name}, admin)
		if err != nil || r.StatusCode() != http.StatusCreated || r.JSON201 == nil || r.JSON201.Id == nil {
			t.Fatalf("create: %v %d %s", err, r.StatusCode(), r.Body)
		}
		ids = append(ids, *r.JSON201.Id)
	}
	if ids[0] != ids[1] {
		t.Fatalf("the retry answered category %s, the first %s; want the first answer again", ids[1], ids[0])
	}
	list, err := client.ListCategoriesWithResponse(ctx, admin)
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("list: %v %d %s, want the one category", err, list.StatusCode(), list.Body)
	}
}
