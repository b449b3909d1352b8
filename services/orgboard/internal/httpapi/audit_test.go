package httpapi_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/orgboard"
)

func TestOwnersReadTheAuditLogThroughFiltersAndCursors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	list := func(p orgboard.ListAuditEntriesParams) orgboard.AuditPage {
		t.Helper()
		p.OrganizationId = w.orgA.Id
		return *must[*orgboard.ListAuditEntriesResponse](t, 200)(c.ListAuditEntriesWithResponse(e.ctx, &p, as(w.ownerA))).JSON200
	}
	all := list(orgboard.ListAuditEntriesParams{Limit: ptr(100)})
	// organization.created, 3 x (invitation.created + member.joined), division.created,
	// product.created, product.identity.updated, 2 x team.created, team.lead.assigned,
	// seat.created, 2 x task.created.
	if len(all.Data) != 16 || all.NextCursor != nil {
		t.Fatalf("%d entries (next %v), want 16 and no more", len(all.Data), all.NextCursor)
	}
	for i := 1; i < len(all.Data); i++ {
		if all.Data[i].At.After(all.Data[i-1].At) {
			t.Fatal("entries are not newest first")
		}
	}
	first := all.Data[len(all.Data)-1]
	if first.Action != "organization.created" || first.Before != nil || (*first.After)["name"] != "Acme" ||
		first.ActorKind != orgboard.ActorKindUser || *first.ActorId != w.ownerA.user || first.ScopeType != orgboard.AuditEntryScopeTypeOrganization {
		t.Fatalf("first entry %+v", first)
	}
	for _, e := range all.Data {
		if e.OrganizationId != w.orgA.Id {
			t.Fatalf("an entry of another organization: %+v", e)
		}
	}

	// Cursor pagination visits every entry once.
	seen := map[uuid.UUID]bool{}
	p := orgboard.ListAuditEntriesParams{Limit: ptr(5)}
	pages := 0
	for {
		page := list(p)
		pages++
		for _, e := range page.Data {
			if seen[e.Id] {
				t.Fatalf("entry %s on two pages", e.Id)
			}
			seen[e.Id] = true
		}
		if page.NextCursor == nil {
			break
		}
		p.Cursor = page.NextCursor
	}
	if len(seen) != 16 || pages != 4 {
		t.Fatalf("paging saw %d entries on %d pages", len(seen), pages)
	}

	byAction := list(orgboard.ListAuditEntriesParams{Action: ptr("task.created")})
	if len(byAction.Data) != 2 {
		t.Fatalf("task.created entries %d", len(byAction.Data))
	}
	byActor := list(orgboard.ListAuditEntriesParams{ActorId: &w.leadA.user})
	if len(byActor.Data) != 2 { // member.joined (accepting) and seat.created
		t.Fatalf("entries by the Lead: %+v", byActor.Data)
	}
	byTarget := list(orgboard.ListAuditEntriesParams{TargetId: &w.productA.Id})
	if len(byTarget.Data) != 2 { // product.created, product.identity.updated
		t.Fatalf("entries about the product: %+v", byTarget.Data)
	}
	cut := byTarget.Data[0].At // the identity write
	since := list(orgboard.ListAuditEntriesParams{TargetId: &w.productA.Id, Since: &cut})
	until := list(orgboard.ListAuditEntriesParams{TargetId: &w.productA.Id, Until: &cut})
	if len(since.Data) != 1 || since.Data[0].Action != "product.identity.updated" || len(until.Data) != 1 || until.Data[0].Action != "product.created" {
		t.Fatalf("since %+v until %+v", since.Data, until.Data)
	}
	future := time.Now().Add(time.Hour)
	if none := list(orgboard.ListAuditEntriesParams{Since: &future}); len(none.Data) != 0 {
		t.Fatalf("entries from the future: %d", len(none.Data))
	}
}

func TestOnlyOwnersReadTheAuditLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.world()
	c := e.client
	p := &orgboard.ListAuditEntriesParams{OrganizationId: w.orgA.Id}
	must[*orgboard.ListAuditEntriesResponse](t, 403)(c.ListAuditEntriesWithResponse(e.ctx, p, as(w.memberA)))
	must[*orgboard.ListAuditEntriesResponse](t, 403)(c.ListAuditEntriesWithResponse(e.ctx, p, as(w.leadA)))
	must[*orgboard.ListAuditEntriesResponse](t, 404)(c.ListAuditEntriesWithResponse(e.ctx, p, as(w.ownerB)))
	must[*orgboard.ListAuditEntriesResponse](t, 400)(c.ListAuditEntriesWithResponse(e.ctx, &orgboard.ListAuditEntriesParams{OrganizationId: w.orgA.Id, Cursor: ptr("not-a-cursor")}, as(w.ownerA)))
}
