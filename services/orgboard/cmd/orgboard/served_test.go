package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// served is the service as serve wires it, on a fresh database and queues of its own, with the
// client of its API (every response validated against the spec), the token issuer it trusts and
// its bus settings.
type served struct {
	svc    *service
	client *orgboard.ClientWithResponses
	issuer *authtest.Issuer
	bus    bus.Config
}

func serve(t *testing.T) served {
	t.Helper()
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
	svc, err := wire(context.Background(), c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.close)
	spec, err := orgboardserver.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client, err := orgboard.NewClientWithResponses(httpxtest.Start(t, svc.http), orgboard.WithHTTPClient(httpxtest.ValidatingDoer(t, spec, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return served{svc: svc, client: client, issuer: issuer, bus: b}
}
