package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/orgboard/internal/app"
)

// seed loads demo or benchmark data and prints what it made as JSON.
func seed(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	demo := fs.Bool("demo", false, "demo organization, teams, seats and board (idempotent)")
	bench := fs.Bool("bench", false, "a new organization with --items tasks across --teams teams")
	teams := fs.Int("teams", 20, "teams of the --bench organization")
	items := fs.Int("items", 5000, "tasks of the --bench organization")
	owner := fs.String("owner", app.DemoOwner.String(), "owner user id of the --bench organization")
	member := fs.String("member", app.DemoMember.String(), "member user id of the --bench organization")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *demo == *bench {
		return usageErr("give exactly one of --demo and --bench")
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	log := telemetry.ServiceLogger("orgboard", c.LogLevel)
	svc, err := buildCore(ctx, c, log)
	if err != nil {
		return err
	}
	defer svc.pool.Close()
	a := svc.app
	var res app.SeedResult
	if *demo {
		res, err = a.SeedDemo(ctx)
	} else {
		var o, m uuid.UUID
		if o, err = uuid.Parse(*owner); err != nil {
			return usageErr("--owner: %v", err)
		}
		if m, err = uuid.Parse(*member); err != nil {
			return usageErr("--member: %v", err)
		}
		res, err = a.SeedBench(ctx, o, m, *teams, *items)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
