package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func TestUUIDColumnsReadBackAsWrittenSetOrNull(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	byUser := seedEntry(t, s)
	bySystem := domain.NewAuditEntry(uuid.New(), domain.ServiceActor("ops", true), domain.Record{
		Action: domain.ActionOrganizationCreated, Scope: domain.OrgScope(byUser.OrganizationID),
		TargetType: domain.TargetOrganization,
	}, byUser.At.Add(time.Millisecond))
	if err := s.AppendAudit(ctx, bySystem); err != nil {
		t.Fatal(err)
	}
	if bySystem.ActorID != nil || bySystem.TargetID != nil {
		t.Fatalf("the second entry must have no actor and no target id: %+v", bySystem)
	}
	page, err := s.ListAudit(ctx, domain.AuditFilter{OrganizationID: byUser.OrganizationID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(e domain.AuditEntry) []any {
		return []any{e.ID, e.OrganizationID, e.ActorID, e.ScopeID, e.TargetID}
	}
	want := [][]any{ids(bySystem), ids(byUser)}
	var got [][]any
	for _, e := range page.Entries {
		got = append(got, ids(e))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %v, wrote %v", got, want)
	}
}
