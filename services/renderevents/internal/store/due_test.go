package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
	"github.com/videotpl/platform/services/renderevents/migrations"
)

func TestRecordingOutcomesUpdatesTheDeliveriesWithoutNewIndexEntries(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	ep, claimed := endpointWithDeliveries(t, st, 3)
	at := time.Now().UTC().Format(time.RFC3339Nano)
	retry := time.Now().Add(time.Minute).UTC().Format(time.RFC3339Nano)
	outcomes := []string{
		fmt.Sprintf(`{"id":%q,"status":"succeeded","attempted":1,"response_code":200,"latency_ms":3,"last_error":null,"next_attempt_at":null,"last_attempt_at":%q,"at":%q}`, claimed[0].ID, at, at),
		fmt.Sprintf(`{"id":%q,"status":"retrying","attempted":1,"response_code":500,"latency_ms":3,"last_error":"endpoint answered 500","next_attempt_at":%q,"last_attempt_at":%q,"at":%q}`, claimed[1].ID, retry, at, at),
		fmt.Sprintf(`{"id":%q,"status":"failed","attempted":0,"response_code":null,"latency_ms":null,"last_error":"endpoint deleted","next_attempt_at":null,"last_attempt_at":null,"at":%q}`, claimed[2].ID, at),
	}
	err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if err := db.New(tx).RecordAttempts(ctx, db.RecordAttemptsParams{Attempts: []byte("[" + strings.Join(outcomes, ",") + "]"),
			Ids: []uuid.UUID{claimed[0].ID, claimed[1].ID, claimed[2].ID}}); err != nil {
			return err
		}
		var updated, hot int
		if err := tx.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables
			WHERE relid = 'webhook_deliveries'::regclass`).Scan(&updated, &hot); err != nil {
			return err
		}
		if updated != 3 || hot != 3 {
			t.Errorf("recording 3 outcomes updated %d rows, %d of them without new index entries; want 3 and 3", updated, hot)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var due []uuid.UUID
	rows, _ := pool.Query(ctx, "SELECT q.id FROM webhook_deliveries_due q JOIN webhook_deliveries d USING (id) WHERE d.endpoint_id = $1", ep.ID)
	due, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil || len(due) != 1 || due[0] != claimed[1].ID {
		t.Fatalf("due after the record: %v (%v), want only the delivery to retry", due, err)
	}
}

func TestTheDueQueueStartsWithEveryPendingDeliveryOfAnExistingTableAndItsLease(t *testing.T) {
	ctx := context.Background()
	st, pool := newStore(t)
	sqlDB := pgxdb.SQLDB(pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS, goose.WithTableName("goose_renderevents"),
		goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	ep := endpoint("whsec_Zmlyc3Qtc2VjcmV0LW9mLXRoZS1lbmRwb2ludA==")
	if _, err := st.CreateEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	type row struct {
		status       string
		next, leased *time.Time
	}
	past, lease := now.Add(-time.Minute), now.Add(time.Hour)
	deliveries := map[string]row{
		"pending":         {"pending", &past, nil},
		"pending, leased": {"pending", &past, &lease},
		"retrying":        {"retrying", &lease, nil},
		"succeeded":       {"succeeded", nil, nil},
		"failed":          {"failed", nil, nil},
	}
	ids := map[string]uuid.UUID{}
	for name, r := range deliveries {
		ids[name] = uuid.New()
		if _, err := pool.Exec(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, tenant_id, event_id, event_type, body,
			status, next_attempt_at, leased_until, created_at, updated_at) VALUES ($1, $2, $3, $4, 'render.job.queued.v1', '{}',
			$5, $6, $7, $8, $8)`, ids[name], ep.ID, ep.TenantID, uuid.New(), r.status, r.next, r.leased, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.UpTo(ctx, 6); err != nil {
		t.Fatal(err)
	}

	for name, r := range deliveries {
		var next time.Time
		var leased *time.Time
		err := pool.QueryRow(ctx, "SELECT next_attempt_at, leased_until FROM webhook_deliveries_due WHERE id = $1", ids[name]).
			Scan(&next, &leased)
		switch {
		case r.status == "succeeded" || r.status == "failed":
			if !errors.Is(err, pgx.ErrNoRows) {
				t.Errorf("%s: due (%v), want not", name, err)
			}
		case err != nil:
			t.Errorf("%s: not due: %v", name, err)
		case !next.Equal(*r.next) || (leased == nil) != (r.leased == nil) || (leased != nil && !leased.Equal(*r.leased)):
			t.Errorf("%s: due at %v leased until %v, want %v and %v", name, next, leased, *r.next, r.leased)
		}
	}
	claimed, err := st.ClaimDue(ctx, now, now.Add(time.Minute), 10)
	if err != nil || len(claimed) != 1 || claimed[0].ID != ids["pending"] {
		t.Fatalf("claimed %+v (%v), want the pending delivery no lease holds", claimed, err)
	}

	// A delivery inserted as the previous release inserts them (an instance not yet replaced
	// during a rolling update) is due too.
	late := uuid.New()
	if _, err := pool.Exec(ctx, `INSERT INTO webhook_deliveries (id, endpoint_id, tenant_id, event_id, event_type, body,
		status, next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, 'render.job.queued.v1', '{}',
		'pending', $5, $5, $5)`, late, ep.ID, ep.TenantID, uuid.New(), now); err != nil {
		t.Fatal(err)
	}
	claimed, err = st.ClaimDue(ctx, now, now.Add(time.Minute), 10)
	if err != nil || len(claimed) != 1 || claimed[0].ID != late {
		t.Fatalf("claimed %+v (%v), want the delivery inserted after the migration", claimed, err)
	}
}

func TestARetryOfADeliveryGivenUpWhileInFlightMakesItDueAgain(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	ep, claimed := endpointWithDeliveries(t, st, 1)
	if err := st.DeleteEndpoint(ctx, ep.ID, time.Now()); err != nil { // gives its pending deliveries up
		t.Fatal(err)
	}
	next, reason := time.Now().Add(time.Minute), "endpoint answered 500"
	if err := st.RecordAttempts(ctx, []domain.AttemptRecord{{DeliveryID: claimed[0].ID, EndpointID: ep.ID,
		Status: domain.DeliveryRetrying, Attempted: true, LastError: &reason, NextAttemptAt: &next, At: time.Now()}}, 10); err != nil {
		t.Fatal(err)
	}
	got, err := st.ClaimDue(ctx, next.Add(time.Second), next.Add(time.Hour), 10)
	if err != nil || len(got) != 1 || got[0].ID != claimed[0].ID {
		t.Fatalf("when the retry is due: claimed %+v (%v), want the delivery, to be given up for good", got, err)
	}
}
