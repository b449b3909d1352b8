package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/services/content/internal/store/seed"
)

// seedCommand loads the demo catalog (--demo) or the benchmark catalog (--bench N, printed as JSON).
func seedCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	demo := fs.Bool("demo", false, "load the demo catalog (idempotent)")
	bench := fs.Int("bench", 0, "load N synthetic templates x 3 projects and one project of 40 scenes x 25 elements")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *demo == (*bench > 0) {
		return fmt.Errorf("%w: give exactly one of --demo and --bench N", cli.ErrUsage)
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	c.MigrateOnStart = true
	pool, err := openPool(ctx, c)
	if err != nil {
		return err
	}
	defer pool.Close()
	if *demo {
		err := seed.Demo(ctx, pool)
		if errors.Is(err, seed.ErrDemoPresent) {
			fmt.Fprintln(os.Stderr, "content seed: the demo catalog is already present")
			return nil
		}
		return err
	}
	info, err := seed.Bench(ctx, pool, *bench)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(info)
}
