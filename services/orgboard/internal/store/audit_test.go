package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/store"
	"github.com/videotpl/platform/services/orgboard/migrations"
)

func newStore(t *testing.T) (*store.Store, func(string, ...any) error) {
	t.Helper()
	pool, _ := pgtest.NewDB(t, migrations.Sets()...)
	exec := func(sql string, args ...any) error {
		_, err := pool.Exec(context.Background(), sql, args...)
		return err
	}
	return store.New(pool), exec
}

// seedEntry writes an organization and one audit entry about it.
func seedEntry(t *testing.T, s *store.Store) domain.AuditEntry {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	org := domain.Organization{ID: uuid.New(), Name: "Acme", CreatedBy: uuid.New(), CreatedAt: now}
	if err := s.InsertOrganization(ctx, org); err != nil {
		t.Fatal(err)
	}
	e := domain.NewAuditEntry(uuid.New(), domain.UserActor(org.CreatedBy), domain.Record{
		Action: domain.ActionOrganizationCreated, Scope: domain.OrgScope(org.ID),
		TargetType: domain.TargetOrganization, TargetID: org.ID, After: map[string]any{"name": "Acme"},
	}, now)
	if err := s.AppendAudit(ctx, e); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestTheDatabaseRefusesToChangeOrRemoveAuditEntries(t *testing.T) {
	s, exec := newStore(t)
	e := seedEntry(t, s)
	cases := []struct{ name, sql string }{
		{"UPDATE", "UPDATE audit_entries SET action = 'forged' WHERE id = $1"},
		{"DELETE", "DELETE FROM audit_entries WHERE id = $1"},
		{"TRUNCATE", "TRUNCATE audit_entries"},
	}
	for _, c := range cases {
		t.Run(c.name+" fails at the database", func(t *testing.T) {
			var err error
			if c.name == "TRUNCATE" {
				err = exec(c.sql)
			} else {
				err = exec(c.sql, e.ID)
			}
			if err == nil {
				t.Fatalf("%s on the audit table succeeded", c.name)
			}
			if !strings.Contains(err.Error(), "append-only") {
				t.Fatalf("%s failed for another reason: %v", c.name, err)
			}
		})
	}
	page, err := s.ListAudit(context.Background(), domain.AuditFilter{OrganizationID: e.OrganizationID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 1 || page.Entries[0].Action != domain.ActionOrganizationCreated {
		t.Fatalf("the entry changed: %+v", page.Entries)
	}
}

func TestAnAuditEntryKeepsActorScopeTargetAndStates(t *testing.T) {
	s, _ := newStore(t)
	e := seedEntry(t, s)
	page, err := s.ListAudit(context.Background(), domain.AuditFilter{OrganizationID: e.OrganizationID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := page.Entries[0]
	if got.ID != e.ID || *got.ActorID != *e.ActorID || got.ActorKind != domain.ActorUser ||
		got.ScopeType != domain.ScopeOrganization || got.ScopeID != e.OrganizationID ||
		got.TargetType != domain.TargetOrganization || *got.TargetID != *e.TargetID ||
		got.Before != nil || got.After["name"] != "Acme" || !got.At.Equal(e.At) {
		t.Fatalf("stored %+v\nread   %+v", e, got)
	}
}

func TestProductIdentityVersionsCannotBeRewritten(t *testing.T) {
	s, exec := newStore(t)
	ctx := context.Background()
	now := time.Now().UTC()
	org := domain.Organization{ID: uuid.New(), Name: "Acme", CreatedBy: uuid.New(), CreatedAt: now}
	p := domain.Product{ID: uuid.New(), OrganizationID: org.ID, Name: "Player", Kind: domain.KindProduct, CreatedAt: now}
	if err := s.InsertOrganization(ctx, org); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendProductIdentity(ctx, domain.ProductIdentity{ProductID: p.ID, Version: 1, Content: "v1", UpdatedAt: &now}); err != nil {
		t.Fatal(err)
	}
	if err := exec("UPDATE product_identities SET content = 'lost' WHERE product_id = $1", p.ID); err == nil {
		t.Fatal("an identity version was rewritten")
	}
	err := s.AppendProductIdentity(ctx, domain.ProductIdentity{ProductID: p.ID, Version: 1, Content: "again", UpdatedAt: &now})
	if errs.KindOf(err) != errs.Conflict {
		t.Fatalf("writing version 1 twice: got %v, want a Conflict", err)
	}
}

func TestAProductCannotSitInADivisionOfAnotherOrganization(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	now := time.Now().UTC()
	a := domain.Organization{ID: uuid.New(), Name: "A", CreatedBy: uuid.New(), CreatedAt: now}
	b := domain.Organization{ID: uuid.New(), Name: "B", CreatedBy: uuid.New(), CreatedAt: now}
	for _, o := range []domain.Organization{a, b} {
		if err := s.InsertOrganization(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	d := domain.Division{ID: uuid.New(), OrganizationID: b.ID, Name: "Media", CreatedAt: now}
	if err := s.InsertDivision(ctx, d); err != nil {
		t.Fatal(err)
	}
	err := s.InsertProduct(ctx, domain.Product{ID: uuid.New(), OrganizationID: a.ID, DivisionID: &d.ID, Name: "X", Kind: domain.KindService, CreatedAt: now})
	if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid || e.Fields[0].Field != "body.division_id" {
		t.Fatalf("got %v, want a 400 on body.division_id", err)
	}
}
