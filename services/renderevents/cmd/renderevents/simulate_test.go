package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	api "github.com/videotpl/platform/gen/renderevents"
)

func TestSimulateFlags(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tenant := "0190a000-0000-7000-8000-0000000000aa"
	s, err := parseSimulate([]string{"--tenant", tenant, "--jobs", "3"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if s.opt.Tenants != 1 || len(s.opt.TenantIDs) != 1 || s.opt.TenantIDs[0].String() != tenant || s.opt.Jobs != 3 {
		t.Errorf("--tenant %s --jobs 3 gave %+v, want one tenant with that id and 3 jobs", tenant, s.opt)
	}
	if s.opt.Seed == 0 || !s.opt.Start.Equal(now) {
		t.Errorf("seed %d start %s, want a seed from the clock and start %s", s.opt.Seed, s.opt.Start, now)
	}
	def, err := parseSimulate(nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if def.opt.Tenants != 2 || def.opt.TenantIDs != nil || def.opt.Jobs != 10 {
		t.Errorf("defaults %+v, want 2 generated tenants and 10 jobs", def.opt)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--tenant", "acme"}, "--tenant"},
		{[]string{"--tenant", tenant, "--tenants", "3"}, "--tenants"},
		{[]string{"--start", "yesterday"}, "--start"},
		{[]string{"extra"}, "extra"},
	} {
		if _, err := parseSimulate(bad.args, now); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one naming %s", bad.args, err, bad.want)
		}
	}
}

// testSimulateForATenantPrintsTheIdsTheServiceThenShows runs the command against the shared
// service: the jobs it prints are the tenant's jobs the API lists, and it prints every event id.
func testSimulateForATenantPrintsTheIdsTheServiceThenShows(t *testing.T, h *harness) {
	tenant := uuid.New()
	var out bytes.Buffer
	args := []string{"--tenant", tenant.String(), "--jobs", "2", "--ticks", "1", "--snapshots", "0",
		"--fail-rate", "0", "--cancel-rate", "0", "--seed", "11"}
	if err := runSimulate(context.Background(), args, h.cfg, &out); err != nil {
		t.Fatal(err)
	}
	ids := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] != "published" {
			ids[f[0]] = append(ids[f[0]], f[1])
		}
	}
	if got := ids["tenant"]; len(got) != 1 || got[0] != tenant.String() {
		t.Fatalf("printed tenants %v, want only %s; output:\n%s", got, tenant, out.String())
	}
	if len(ids["job"]) != 2 || len(ids["event"]) < 2*4 {
		t.Fatalf("printed %d jobs and %d events, want 2 jobs and their events; output:\n%s",
			len(ids["job"]), len(ids["event"]), out.String())
	}
	ctx := context.Background()
	admin := h.admin()
	eventually(t, 30*time.Second, "the tenant's two jobs to be completed", func() bool {
		r, err := h.client.ListRenderJobsWithResponse(ctx, &api.ListRenderJobsParams{TenantId: &tenant}, admin)
		if err != nil || r.JSON200 == nil || len(r.JSON200.Data) != 2 {
			return false
		}
		want := map[string]bool{ids["job"][0]: true, ids["job"][1]: true}
		for _, j := range r.JSON200.Data {
			if !want[j.JobId.String()] || j.State != api.JobStateCompleted {
				return false
			}
		}
		return true
	})
}
