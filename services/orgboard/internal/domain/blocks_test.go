package domain_test

import (
	"testing"
	"time"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func TestABlockHoldsUntilItsEnd(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	for _, tc := range []struct {
		name  string
		block domain.Block
		holds bool
	}{
		{"a ban without unblock_date", domain.Block{Cause: domain.BlockUserBanned}, true},
		{"a ban ending later", domain.Block{Cause: domain.BlockUserBanned, Until: at(time.Second)}, true},
		{"a ban ending now", domain.Block{Cause: domain.BlockUserBanned, Until: at(0)}, false},
		{"a ban that ended", domain.Block{Cause: domain.BlockUserBanned, Until: at(-time.Hour)}, false},
		{"a suspension", domain.Block{Cause: domain.BlockTenantSuspended, Since: now.Add(-time.Hour)}, true},
	} {
		if got := tc.block.ActiveAt(now); got != tc.holds {
			t.Errorf("%s: ActiveAt = %v, want %v", tc.name, got, tc.holds)
		}
	}
}

func TestTheRefusalOfABlockedCallerSaysWhyAndUntilWhen(t *testing.T) {
	since := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	until := time.Date(2026, 12, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		block domain.Block
		want  string
	}{
		{domain.Block{Cause: domain.BlockUserBanned, Reason: "spam", Since: since, Until: &until},
			"the caller is banned until 2026-11-30T23:00:00Z: spam"},
		{domain.Block{Cause: domain.BlockUserBanned, Reason: "fraud", Since: since},
			"the caller is banned: fraud"},
		{domain.Block{Cause: domain.BlockTenantSuspended, Reason: "unpaid invoice", Since: since},
			"the caller's tenant is suspended since 2026-11-01T08:00:00Z: unpaid invoice"},
	} {
		err := tc.block.Refusal()
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.Forbidden || e.Detail != tc.want {
			t.Errorf("refusal %v; want forbidden %q", err, tc.want)
		}
	}
}

func TestABanRefusesBeforeASuspensionAndEndedBlocksNot(t *testing.T) {
	now := time.Now()
	ended := now.Add(-time.Minute)
	ban := domain.Block{Cause: domain.BlockUserBanned, Reason: "ban"}
	endedBan := domain.Block{Cause: domain.BlockUserBanned, Reason: "ended", Until: &ended}
	suspension := domain.Block{Cause: domain.BlockTenantSuspended, Reason: "suspension"}
	for _, tc := range []struct {
		name   string
		blocks []domain.Block
		want   string
	}{
		{"none", nil, ""},
		{"an ended ban only", []domain.Block{endedBan}, ""},
		{"a suspension and an ended ban", []domain.Block{endedBan, suspension}, "suspension"},
		{"a suspension and a ban", []domain.Block{suspension, ban}, "ban"},
		{"a ban and a suspension", []domain.Block{ban, suspension}, "ban"},
	} {
		got := domain.FirstActive(tc.blocks, now)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: %+v, want none", tc.name, got)
		case tc.want != "" && (got == nil || got.Reason != tc.want):
			t.Errorf("%s: %+v, want %q", tc.name, got, tc.want)
		}
	}
}
