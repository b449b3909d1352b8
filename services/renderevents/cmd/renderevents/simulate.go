package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/videotpl/platform/services/renderevents/internal/store"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// simulate publishes a generated stream to the configured exchanges.
func simulate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	opt := sim.Options{}
	fs.IntVar(&opt.Jobs, "jobs", 10, "render jobs")
	fs.IntVar(&opt.Tenants, "tenants", 2, "tenants (each with a user, a plan, an API key)")
	fs.IntVar(&opt.ProgressTicks, "ticks", 10, "progress ticks per job")
	fs.IntVar(&opt.Snapshots, "snapshots", 3, "snapshots")
	fs.Float64Var(&opt.FailRate, "fail-rate", 0.1, "share of jobs that fail")
	fs.Float64Var(&opt.CancelRate, "cancel-rate", 0.1, "share of jobs that are cancelled")
	fs.BoolVar(&opt.Identity, "identity", true, "also bans, plan expiries, key revocations, a suspension")
	fs.Float64Var(&opt.Duplicates, "duplicates", 0, "share of messages published twice")
	fs.IntVar(&opt.Reorder, "reorder", 0, "shuffle within windows of this many messages (0: in order)")
	seed := fs.Uint64("seed", 0, "random seed (0: from the clock)")
	start := fs.String("start", "", "event_time of the first event, RFC 3339 (default: now)")
	rate := fs.Float64("rate", 0, "messages per second (0: as fast as the broker confirms)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	opt.Seed = *seed
	if opt.Seed == 0 {
		opt.Seed = uint64(time.Now().UnixNano())
	}
	opt.Start = time.Now().UTC()
	if *start != "" {
		if opt.Start, err = time.Parse(time.RFC3339, *start); err != nil {
			return fmt.Errorf("--start: %w", err)
		}
	}
	stream, err := sim.Generate(opt)
	if err != nil {
		return err
	}
	pub, err := store.NewPublisher(c.BusConfig())
	if err != nil {
		return err
	}
	defer pub.Close()
	var pace func(int, *sim.Message)
	if *rate > 0 {
		interval := time.Duration(float64(time.Second) / *rate)
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
	fmt.Fprintf(os.Stdout, "published %d messages (%d tenants, %d jobs) in %s\n", len(stream.Messages),
		len(stream.Tenants), len(stream.Jobs), time.Since(began).Round(time.Millisecond))
	return nil
}
