package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

func TestARetriedOrganizationCreationWithOneIdempotencyKeyCreatesOneOrganization(t *testing.T) {
	ctx := context.Background()
	var c Config
	if err := config.Load(&c); err != nil {
		t.Fatal(err)
	}
	_, c.DatabaseURL = pgtest.NewDB(t, migrationSets()...)
	c.MigrateOnStart = false
	c.SealKeys = "test:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	b := bustest.Config(t)
	c.AMQPURL, c.Service, c.EventsExchange, c.DeadLetterExchange = b.AMQPURL, b.Service, b.EventsExchange, b.DeadLetterExchange
	issuer := authtest.New(t)
	issuer.Configure(&c.Common)
	svc, err := wire(ctx, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.close()
	e := svc.http
	spec, err := orgboardserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client, err := orgboard.NewClientWithResponses(httpxtest.Start(t, e), orgboard.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}

	user := authtest.Bearer(issuer.Token(t, authtest.Subject(uuid.New()), authtest.Tenant(uuid.New())))
	key := uuid.NewString()
	var ids []uuid.UUID
	for range 2 {
		r, err := client.CreateOrganizationWithResponse(ctx, &orgboard.CreateOrganizationParams{IdempotencyKey: &key},
			orgboard.OrganizationCreate{Name: "Acme"}, user)
		if err != nil || r.StatusCode() != http.StatusCreated || r.JSON201 == nil {
			t.Fatalf("create: %v %d %s", err, r.StatusCode(), r.Body)
		}
		ids = append(ids, r.JSON201.Id)
	}
	if ids[0] != ids[1] {
		t.Fatalf("the retry created organization %s besides %s; want the first answer again", ids[1], ids[0])
	}
	list, err := client.ListOrganizationsWithResponse(ctx, user)
	if err != nil || list.JSON200 == nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("list: %v %d %s, want the one organization", err, list.StatusCode(), list.Body)
	}
}
