package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// simulate publishes a generated stream to the configured exchanges.
func simulate(ctx context.Context, args []string) error {
	c, err := loadConfig()
	if err != nil {
		return err
	}
	return runSimulate(ctx, args, c, os.Stdout)
}

// simulation is what the simulate command line asks for.
type simulation struct {
	opt  sim.Options
	rate float64 // messages per second, 0: as fast as the broker confirms
}

// parseSimulate reads the simulate command line. now is the default event time of the first
// event and, without --seed, the seed.
func parseSimulate(args []string, now time.Time) (simulation, error) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	s := simulation{}
	opt := &s.opt
	fs.IntVar(&opt.Jobs, "jobs", 10, "render jobs")
	fs.IntVar(&opt.Tenants, "tenants", 2, "tenants (each with a user, a plan, an API key)")
	tenant := fs.String("tenant", "", "publish everything as this one tenant (a UUID), e.g. one a webhook is registered for; the default is --tenants generated tenants")
	fs.IntVar(&opt.ProgressTicks, "ticks", 10, "progress ticks per job")
	fs.IntVar(&opt.Snapshots, "snapshots", 3, "snapshots")
	fs.Float64Var(&opt.FailRate, "fail-rate", 0.1, "share of jobs that fail")
	fs.Float64Var(&opt.CancelRate, "cancel-rate", 0.1, "share of jobs that are cancelled")
	fs.BoolVar(&opt.Identity, "identity", true, "also bans, plan expiries, key revocations, a suspension")
	fs.Float64Var(&opt.Duplicates, "duplicates", 0, "share of messages published twice")
	fs.IntVar(&opt.Reorder, "reorder", 0, "shuffle within windows of this many messages (0: in order)")
	seed := fs.Uint64("seed", 0, "random seed (0: from the clock)")
	start := fs.String("start", "", "event_time of the first event, RFC 3339 (default: now)")
	fs.Float64Var(&s.rate, "rate", 0, "messages per second (0: as fast as the broker confirms)")
	if err := fs.Parse(args); err != nil {
		return simulation{}, err
	}
	if fs.NArg() > 0 {
		return simulation{}, fmt.Errorf("simulate: unexpected argument %q", fs.Arg(0))
	}
	if *tenant != "" {
		id, err := uuid.Parse(*tenant)
		if err != nil {
			return simulation{}, fmt.Errorf("--tenant: %q is not a UUID", *tenant)
		}
		tenantsSet := false
		fs.Visit(func(f *flag.Flag) { tenantsSet = tenantsSet || f.Name == "tenants" })
		if tenantsSet && opt.Tenants != 1 {
			return simulation{}, errors.New("--tenant publishes as one tenant: leave out --tenants")
		}
		// One tenant only: with several, the first one is suspended, and a suspended
		// tenant's webhooks receive nothing.
		opt.Tenants, opt.TenantIDs = 1, []uuid.UUID{id}
	}
	opt.Seed = *seed
	if opt.Seed == 0 {
		opt.Seed = uint64(now.UnixNano())
	}
	opt.Start = now.UTC()
	if *start != "" {
		var err error
		if opt.Start, err = time.Parse(time.RFC3339, *start); err != nil {
			return simulation{}, fmt.Errorf("--start: %w", err)
		}
	}
	return s, nil
}

// runSimulate publishes the stream args ask for with c's bus configuration and writes to out
// the ids it used: the tenants and jobs before publishing, then every event id with its type.
func runSimulate(ctx context.Context, args []string, c Config, out io.Writer) error {
	s, err := parseSimulate(args, time.Now())
	if err != nil {
		return err
	}
	stream, err := sim.Generate(s.opt)
	if err != nil {
		return err
	}
	pub, err := store.NewPublisher(c.BusConfig())
	if err != nil {
		return err
	}
	defer pub.Close()
	for _, id := range stream.Tenants {
		fmt.Fprintf(out, "tenant %s\n", id)
	}
	for _, id := range stream.Jobs {
		fmt.Fprintf(out, "job    %s\n", id)
	}
	var pace func(int, *sim.Message)
	if s.rate > 0 {
		interval := time.Duration(float64(time.Second) / s.rate)
		next := time.Now()
		pace = func(int, *sim.Message) {
			time.Sleep(time.Until(next))
			next = next.Add(interval)
		}
	}
	began := time.Now()
	if err := pub.Publish(ctx, stream.Messages, pace); err != nil {
		return err
	}
	took := time.Since(began)
	printEvents(out, stream.Messages)
	fmt.Fprintf(out, "published %d messages (%d tenants, %d jobs) in %s\n", len(stream.Messages),
		len(stream.Tenants), len(stream.Jobs), took.Round(time.Millisecond))
	return nil
}

// printEvents writes one line per event published (a duplicate once): its id, type and tenant.
func printEvents(out io.Writer, msgs []sim.Message) {
	seen := make(map[uuid.UUID]bool, len(msgs))
	for _, m := range msgs {
		if seen[m.EventID] {
			continue
		}
		seen[m.EventID] = true
		fmt.Fprintf(out, "event  %s %s tenant=%s\n", m.EventID, m.EventType, m.TenantID)
	}
}
