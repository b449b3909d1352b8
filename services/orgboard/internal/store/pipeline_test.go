package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

func TestAPipelineCommitsItsWritesTogetherOrNone(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	org := func(name string) domain.Organization {
		return domain.Organization{ID: uuid.New(), Name: name, CreatedBy: uuid.New(), CreatedAt: now}
	}
	exists := func(o domain.Organization) bool {
		_, err := s.GetOrganization(ctx, o.ID)
		if err != nil && errs.KindOf(err) != errs.NotFound {
			t.Fatal(err)
		}
		return err == nil
	}

	a, b := org("a"), org("b")
	err := s.InTx(ctx, func(tx domain.Store) error {
		return tx.Pipeline(ctx, func(p domain.Store) error {
			if err := p.InsertOrganization(ctx, a); err != nil {
				return err
			}
			return p.InsertOrganization(ctx, b)
		})
	})
	if err != nil || !exists(a) || !exists(b) {
		t.Fatalf("both writes must be committed: err %v, a %v, b %v", err, exists(a), exists(b))
	}

	c := org("c")
	err = s.InTx(ctx, func(tx domain.Store) error {
		return tx.Pipeline(ctx, func(p domain.Store) error {
			if err := p.InsertOrganization(ctx, c); err != nil {
				return err
			}
			return p.InsertOrganization(ctx, a) // its id is taken: the pipeline fails at the database
		})
	})
	if err == nil || exists(c) {
		t.Fatalf("a failing write must fail the pipeline and roll back the others: err %v, c written %v", err, exists(c))
	}

	d := org("d")
	var read domain.Organization
	err = s.InTx(ctx, func(tx domain.Store) error {
		return tx.Pipeline(ctx, func(p domain.Store) error {
			if err := p.InsertOrganization(ctx, d); err != nil {
				return err
			}
			var err error
			read, err = p.GetOrganization(ctx, d.ID)
			return err
		})
	})
	if err != nil || read.ID != d.ID || read.Name != "d" {
		t.Errorf("a read inside a pipeline must see the writes queued before it: got %+v, err %v", read, err)
	}
	if err := s.Pipeline(ctx, func(domain.Store) error { return nil }); err == nil {
		t.Error("a pipeline outside a transaction must be refused")
	}
}
