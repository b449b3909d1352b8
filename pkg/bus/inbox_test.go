package bus_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// effectsDB is a database with the bus tables and a table standing for a consumer's effect.
func effectsDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, _ := effectsDBWithURL(t)
	return pool
}

// effectsDBWithURL is effectsDB and the database's URL.
func effectsDBWithURL(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	pool, dbURL := pgtest.NewDB(t, bus.Migrations())
	if _, err := pool.Exec(context.Background(), `CREATE TABLE effects (event_id uuid NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return pool, dbURL
}

func countEffects(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM effects WHERE event_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func applyEffect(id uuid.UUID) func(context.Context, pgx.Tx) error {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO effects (event_id) VALUES ($1)`, id)
		return err
	}
}

func TestAnEventDeliveredTwiceByTheBrokerHasItsEffectOnce(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	pool := effectsDB(t)

	router, sub := queueRouter(t, cfg, nil, []string{"render.job.completed.v1"})
	applied := make(chan bool, 2)
	bus.Consume(router, "bustest", sub, bus.Handlers{
		"render.job.completed.v1": func(ctx context.Context, env events.EventEnvelope) error {
			ok, err := bus.HandleOnce(ctx, pool, cfg.Service, env.EventID, applyEffect(env.EventID))
			if err == nil {
				applied <- ok
			}
			return err
		},
	})
	runRouter(t, router)

	pub := publisher(t, cfg)
	env := envelope(t, "render.job.completed.v1", map[string]any{"render_job_id": uuid.New()})
	// A producer that lost a confirm publishes again: same event, second delivery.
	for range 2 {
		if err := bus.PublishEvents(context.Background(), pub, env); err != nil {
			t.Fatal(err)
		}
	}

	var got []bool
	for range 2 {
		select {
		case ok := <-applied:
			got = append(got, ok)
		case <-time.After(10 * time.Second):
			t.Fatalf("deliveries handled: %v, want 2", got)
		}
	}
	if got[0] != true || got[1] != false {
		t.Errorf("applied per delivery = %v, want [true false]", got)
	}
	if n := countEffects(t, pool, env.EventID); n != 1 {
		t.Errorf("effect rows = %d, want 1", n)
	}
}

func TestHandleOnce(t *testing.T) {
	t.Parallel()
	pool := effectsDB(t)
	ctx := context.Background()

	t.Run("concurrent duplicates apply the effect once", func(t *testing.T) {
		id := uuid.New()
		var wg sync.WaitGroup
		results := make(chan bool, 8)
		for range 8 {
			wg.Go(func() {
				ok, err := bus.HandleOnce(ctx, pool, "c1", id, applyEffect(id))
				if err != nil {
					t.Error(err)
				}
				results <- ok
			})
		}
		wg.Wait()
		close(results)
		appliedCount := 0
		for ok := range results {
			if ok {
				appliedCount++
			}
		}
		if appliedCount != 1 || countEffects(t, pool, id) != 1 {
			t.Errorf("applied %d times, %d effect rows; want 1 and 1", appliedCount, countEffects(t, pool, id))
		}
	})

	t.Run("a failed effect is not recorded, so a redelivery applies it", func(t *testing.T) {
		id := uuid.New()
		_, err := bus.HandleOnce(ctx, pool, "c1", id, func(ctx context.Context, tx pgx.Tx) error {
			if err := applyEffect(id)(ctx, tx); err != nil {
				return err
			}
			return context.DeadlineExceeded
		})
		if err == nil {
			t.Fatal("HandleOnce hid the effect's error")
		}
		ok, err := bus.HandleOnce(ctx, pool, "c1", id, applyEffect(id))
		if err != nil || !ok || countEffects(t, pool, id) != 1 {
			t.Errorf("after a failed attempt: applied=%v err=%v rows=%d; want true, nil, 1", ok, err, countEffects(t, pool, id))
		}
	})

	t.Run("each consumer applies the same event once", func(t *testing.T) {
		id := uuid.New()
		for _, consumer := range []string{"c1", "c2"} {
			if ok, err := bus.HandleOnce(ctx, pool, consumer, id, applyEffect(id)); err != nil || !ok {
				t.Errorf("%s: applied=%v err=%v, want true, nil", consumer, ok, err)
			}
		}
		if n := countEffects(t, pool, id); n != 2 {
			t.Errorf("effect rows = %d, want 2", n)
		}
	})
}
