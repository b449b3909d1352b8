package sim_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

func TestAStreamCarriesEveryEventOfSeed001AndValidates(t *testing.T) {
	st, err := sim.Generate(sim.Options{Tenants: 2, Jobs: 4, Running: 1, ProgressTicks: 3, Snapshots: 1,
		FailRate: 0.34, CancelRate: 0.34, Identity: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range st.Messages {
		if _, err := busapi.ParseEvent(m.Body); err != nil {
			t.Fatalf("%s does not validate: %v", m.EventType, err)
		}
		seen[m.EventType] = true
	}
	var want, got []string
	for _, n := range events.Names() {
		if strings.HasPrefix(n, "render.") || strings.HasPrefix(n, "identity.") { // seed 001's producers
			want = append(want, n)
		}
	}
	for n := range seen {
		got = append(got, n)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("event types %v, want the 20 of seed 001 %v", got, want)
	}
}

func TestDuplicatesAndReorderingKeepTheSameEvents(t *testing.T) {
	opt := sim.Options{Tenants: 2, Jobs: 20, ProgressTicks: 2, Seed: 9}
	plain, _ := sim.Generate(opt)
	opt.Duplicates, opt.Reorder = 0.3, 8
	messy, _ := sim.Generate(opt)
	ids := func(st sim.Stream) map[string]int {
		out := map[string]int{}
		for _, m := range st.Messages {
			out[m.EventID.String()]++
		}
		return out
	}
	p, m := ids(plain), ids(messy)
	if len(p) != len(m) {
		t.Fatalf("%d distinct events in order, %d messy", len(p), len(m))
	}
	dups, moved := 0, 0
	for id, n := range m {
		if p[id] != 1 {
			t.Fatalf("event %s is not in the plain stream", id)
		}
		dups += n - 1
	}
	for i := range plain.Messages {
		if plain.Messages[i].EventID != messy.Messages[i].EventID {
			moved++
		}
	}
	if dups == 0 || moved == 0 {
		t.Fatalf("duplicates %d, moved %d: want both", dups, moved)
	}
}

func TestTheGivenTenantIDsAreTheStreamsFirstTenants(t *testing.T) {
	want := uuid.MustParse("0190a000-0000-7000-8000-000000000001")
	st, err := sim.Generate(sim.Options{TenantIDs: []uuid.UUID{want}, Jobs: 2, ProgressTicks: 1, Identity: true, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Tenants) != 1 || st.Tenants[0] != want {
		t.Fatalf("tenants %v, want only %s", st.Tenants, want)
	}
	for _, m := range st.Messages {
		e, err := busapi.ParseEvent(m.Body)
		if err != nil {
			t.Fatalf("%s does not validate: %v", m.EventType, err)
		}
		if m.TenantID != want || e.TenantID != want {
			t.Fatalf("%s %s is of tenant %s (envelope %s), want %s", m.EventType, m.EventID, m.TenantID, e.TenantID, want)
		}
	}
	two, err := sim.Generate(sim.Options{TenantIDs: []uuid.UUID{want}, Tenants: 2, Jobs: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(two.Tenants) != 2 || two.Tenants[0] != want || two.Tenants[1] == want {
		t.Fatalf("tenants %v, want %s then a generated one", two.Tenants, want)
	}
}
