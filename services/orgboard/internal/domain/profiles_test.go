package domain

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestResolutionPrefersAuthoredThenInstalledThenBuiltinThenHighestVersion(t *testing.T) {
	org := uuid.New()
	at := time.Now()
	p := func(key, version string, origin ProfileOrigin) AgentProfile {
		pr := AgentProfile{ID: uuid.New(), Key: key, Version: version, Origin: origin, CreatedAt: at}
		if origin != OriginBuiltin {
			pr.OrganizationID = &org
		}
		return pr
	}
	all := []AgentProfile{
		p("qa", "9.0.0", OriginBuiltin),
		p("qa", "1.0.0", OriginInstalled),
		p("qa", "0.1.0", OriginAuthored),
		p("qa", "0.2.0-beta", OriginAuthored),
		p("dev", "1.0.0", OriginBuiltin),
		p("dev", "1.10.0", OriginBuiltin),
		p("dev", "1.9.0", OriginBuiltin),
		p("po", "2.0.0", OriginInstalled),
		p("po", "2.0.0-rc.1", OriginInstalled),
		p("po", "3.0.0", OriginBuiltin),
	}
	winners := ResolveProfiles(all)
	want := []struct{ key, version string }{{"dev", "1.10.0"}, {"po", "2.0.0"}, {"qa", "0.2.0-beta"}}
	if len(winners) != len(want) {
		t.Fatalf("winners = %d, want %d", len(winners), len(want))
	}
	for i, w := range want {
		if winners[i].Key != w.key || winners[i].Version != w.version {
			t.Errorf("winner %d = %s %s, want %s %s", i, winners[i].Key, winners[i].Version, w.key, w.version)
		}
	}

	SortByResolution(all)
	var qa []string
	for _, pr := range all {
		if pr.Key == "qa" {
			qa = append(qa, string(pr.Origin)+" "+pr.Version)
		}
	}
	wantQA := []string{"Authored 0.2.0-beta", "Authored 0.1.0", "Installed 1.0.0", "Builtin 9.0.0"}
	for i := range wantQA {
		if qa[i] != wantQA[i] {
			t.Fatalf("qa order = %v, want %v", qa, wantQA)
		}
	}
}
