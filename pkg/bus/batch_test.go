package bus_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// Event types of the test applier: a poison event cannot be applied (no retry helps), a
// flaky one always fails as a transient error would, a recovering one fails as during an
// outage until its retries are spent and is applied after that (the database answering again
// just as the consumer checks it), a skipped one is acknowledged unapplied.
const (
	okEvent         = "test.ok.v1"
	poisonEvent     = "test.poison.v1"
	flakyEvent      = "test.flaky.v1"
	recoveringEvent = "test.recovering.v1"
	skippedEvent    = "test.skipped.v1"
)

// effectApplier is a service's part of a batch consumer: each event writes an effect row,
// recorded in the inbox in the same transaction.
type effectApplier struct {
	pool     *pgxpool.Pool
	consumer string

	batches   atomic.Int32 // ApplyBatch calls that committed
	committed atomic.Int32 // events handed to those calls
	failed    atomic.Int32 // ApplyBatch calls that failed

	mu       sync.Mutex
	oneCalls map[uuid.UUID]int
}

func newEffectApplier(pool *pgxpool.Pool, consumer string) *effectApplier {
	return &effectApplier{pool: pool, consumer: consumer, oneCalls: map[uuid.UUID]int{}}
}

func (a *effectApplier) Decode(body []byte) (events.EventEnvelope, bool, error) {
	var env events.EventEnvelope
	err := env.UnmarshalJSON(body)
	return env, env.EventType == skippedEvent, err
}

func (a *effectApplier) effect(ctx context.Context, tx pgx.Tx, env events.EventEnvelope) error {
	switch env.EventType {
	case poisonEvent:
		return bus.Permanent(errors.New("the job belongs to another tenant"))
	case flakyEvent:
		return errors.New("deadlock detected")
	case recoveringEvent:
		if a.applyOneCalls(env.EventID) <= 3 { // the first attempt and bustest.Config's two retries
			return errors.New("connection refused")
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO effects (event_id) VALUES ($1)`, env.EventID)
	return err
}

func (a *effectApplier) ApplyBatch(ctx context.Context, evs []events.EventEnvelope) error {
	err := pgxdb.WithTx(ctx, a.pool, func(tx pgx.Tx) error {
		byID := make(map[uuid.UUID]events.EventEnvelope, len(evs))
		ids := make([]uuid.UUID, 0, len(evs))
		for _, e := range evs {
			byID[e.EventID] = e
			ids = append(ids, e.EventID)
		}
		fresh, err := bus.HandleBatchOnce(ctx, tx, a.consumer, ids)
		if err != nil {
			return err
		}
		for _, id := range fresh {
			if err := a.effect(ctx, tx, byID[id]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		a.failed.Add(1)
		return err
	}
	a.batches.Add(1)
	a.committed.Add(int32(len(evs))) //nolint:gosec // a batch is small
	return nil
}

func (a *effectApplier) ApplyOne(ctx context.Context, env events.EventEnvelope) error {
	a.mu.Lock()
	a.oneCalls[env.EventID]++
	a.mu.Unlock()
	_, err := bus.HandleOnce(ctx, a.pool, a.consumer, env.EventID, func(ctx context.Context, tx pgx.Tx) error {
		return a.effect(ctx, tx, env)
	})
	return err
}

func (a *effectApplier) Ping(ctx context.Context) error { return a.pool.Ping(ctx) }

func (a *effectApplier) applyOneCalls(id uuid.UUID) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.oneCalls[id]
}

// runBatchConsumer runs a batch consumer of cfg's queue (bound to "test.#") until the test
// ends and waits until it consumes.
func runBatchConsumer(t *testing.T, cfg bus.Config, batch bus.BatchConfig, a bus.BatchApplier[events.EventEnvelope],
	metrics bus.Metrics, log *slog.Logger) *bus.BatchConsumer[events.EventEnvelope] {
	t.Helper()
	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dlq.Close() })
	c, err := bus.NewBatchConsumer(cfg, batch, a, dlq, metrics, log, "test.#")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("batch consumer: %v", err)
		}
	})
	select {
	case <-c.Ready():
	case err := <-done:
		t.Fatalf("batch consumer stopped at start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("batch consumer not consuming within 10s")
	}
	return c
}

// declareQueue declares cfg's service queue as the consumer will, so messages published
// before it starts wait there.
func declareQueue(t *testing.T, cfg bus.Config) {
	t.Helper()
	if err := bus.DeclareServiceQueue(bustest.Channel(t), cfg, "test.#"); err != nil {
		t.Fatal(err)
	}
}

func envelopes(t *testing.T, eventType string, n int) []events.EventEnvelope {
	t.Helper()
	out := make([]events.EventEnvelope, n)
	for i := range out {
		out[i] = envelope(t, eventType, map[string]any{"n": i})
	}
	return out
}

func handledCount(t *testing.T, pool *pgxpool.Pool, consumer string) int {
	t.Helper()
	n, err := bus.HandledCount(context.Background(), pool, consumer)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func queryInt(t *testing.T, pool *pgxpool.Pool, sql string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestABatchIsAppliedInOneTransactionAndARedeliveredBatchChangesNothing(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	log := testLogger(t)
	pool := effectsDB(t)
	a := newEffectApplier(pool, cfg.Service)

	const n = 40
	sent := envelopes(t, okEvent, n)
	declareQueue(t, cfg)
	bustest.Publish(t, cfg, sent...) // waiting in the queue: they arrive together
	runBatchConsumer(t, cfg, bus.BatchConfig{Size: n, Wait: 5 * time.Second}, a, nil, log)
	eventually(t, 10*time.Second, "the batch applied", func() bool { return a.committed.Load() == n })

	if got := queryInt(t, pool, `SELECT count(*) FROM effects`); got != n {
		t.Fatalf("%d effects, want %d", got, n)
	}
	if tx := queryInt(t, pool, `SELECT count(DISTINCT xmin::text) FROM effects`); tx != 1 || a.batches.Load() != 1 {
		t.Errorf("%d events written by %d transactions in %d batches, want one", n, tx, a.batches.Load())
	}
	sameTx := queryInt(t, pool, `SELECT count(*) FROM effects e JOIN bus_inbox i ON i.event_id = e.event_id AND i.xmin = e.xmin`)
	if sameTx != n {
		t.Errorf("%d of %d events recorded in the inbox by the transaction of their effect", sameTx, n)
	}

	// The same batch again, as after a lost acknowledgement: recorded, so nothing happens.
	bustest.Publish(t, cfg, sent...)
	eventually(t, 10*time.Second, "the redelivered batch handled", func() bool { return a.committed.Load() == 2*n })
	if got := queryInt(t, pool, `SELECT count(*) FROM effects`); got != n {
		t.Errorf("%d effects after the redelivery, want still %d", got, n)
	}
	if got := handledCount(t, pool, cfg.Service); got != n {
		t.Errorf("inbox holds %d events, want %d", got, n)
	}
	if a.failed.Load() != 0 {
		t.Errorf("%d batches failed, want none", a.failed.Load())
	}
}

func TestPoisonMessagesAreDeadLetteredWithTheirReasonWhileTheOthersAreApplied(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	log := testLogger(t)
	pool := effectsDB(t)
	a := newEffectApplier(pool, cfg.Service)
	reg := prometheus.NewPedanticRegistry()
	metrics, err := bus.NewPrometheusMetrics(reg, bus.WithEventTypes(okEvent, poisonEvent, flakyEvent, recoveringEvent))
	if err != nil {
		t.Fatal(err)
	}

	declareQueue(t, cfg)
	first := envelope(t, okEvent, map[string]any{"n": 0})
	poison := envelope(t, poisonEvent, map[string]any{})
	flaky := envelope(t, flakyEvent, map[string]any{})
	recovering := envelope(t, recoveringEvent, map[string]any{})
	skipped := envelope(t, skippedEvent, map[string]any{})
	after := envelopes(t, okEvent, 4)
	bustest.Publish(t, cfg, first)
	bustest.PublishRaw(t, cfg.EventsExchange, "test.garbage.v1", amqp.Publishing{MessageId: "garbage-1", Body: []byte("not an envelope")})
	bustest.Publish(t, cfg, append([]events.EventEnvelope{poison, flaky, recovering, skipped}, after...)...)
	runBatchConsumer(t, cfg, bus.BatchConfig{Size: 16, Wait: 50 * time.Millisecond}, a, metrics, log)

	dead := byMessageID(bustest.Read(t, bustest.Channel(t), cfg.DeadLetterQueue(), 3, 10*time.Second))
	tests := []struct {
		name, messageID, eventType, reason, permanent, attempts string
	}{
		{"a message that is no envelope, at once", "garbage-1", "test.garbage.v1", "must be a JSON object", "true", "1"},
		{"an event that cannot be applied, at once", poison.EventID.String(), poisonEvent, "another tenant", "true", "1"},
		{"an event that keeps failing, after its retries and one more attempt once the database answered", flaky.EventID.String(), flakyEvent, "deadlock detected", "false", "4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := dead[tt.messageID]
			if !ok {
				t.Fatalf("message %s not in %s", tt.messageID, cfg.DeadLetterQueue())
			}
			if r, _ := d.Headers[bus.MetaDeadLetterReason].(string); !strings.Contains(r, tt.reason) {
				t.Errorf("reason %q does not say %q", r, tt.reason)
			}
			for header, want := range map[string]string{
				bus.MetaEventType: tt.eventType, bus.MetaDeadLetterPermanent: tt.permanent,
				bus.MetaDeadLetterAttempts: tt.attempts, bus.MetaDeadLetterHandler: cfg.ServiceQueue(),
			} {
				if d.Headers[header] != want {
					t.Errorf("header %s = %v, want %s", header, d.Headers[header], want)
				}
			}
		})
	}
	if n := a.applyOneCalls(poison.EventID); n != 1 {
		t.Errorf("the poison event was applied %d times one by one, want 1 (no retries)", n)
	}

	eventually(t, 5*time.Second, "the other events applied", func() bool { return handledCount(t, pool, cfg.Service) == 6 })
	for _, env := range append(after, first, recovering) {
		if n := countEffects(t, pool, env.EventID); n != 1 {
			t.Errorf("event %s has %d effects, want 1", env.EventID, n)
		}
	}
	if n := countEffects(t, pool, skipped.EventID); n != 0 {
		t.Errorf("the skipped event has %d effects, want none", n)
	}
	got := counterValues(t, reg)
	for k, want := range map[string]float64{
		`bus_messages_handled_total{event_type="test.ok.v1"}`:           5,
		`bus_messages_dead_lettered_total{event_type="other"}`:          1, // a routing key outside the catalogue
		`bus_messages_dead_lettered_total{event_type="test.poison.v1"}`: 1,
		`bus_messages_dead_lettered_total{event_type="test.flaky.v1"}`:  1,
		`bus_messages_failed_total{event_type="test.flaky.v1"}`:         4,
		`bus_messages_failed_total{event_type="test.recovering.v1"}`:    3,
		`bus_messages_handled_total{event_type="test.recovering.v1"}`:   1,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
}

func TestEventsFailingWhileTheDatabaseIsDownGoBackToTheQueueNotToTheDeadLetters(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	direct, dbURL := effectsDBWithURL(t)
	proxy := startProxy(t, dbURL) // the consumer's way to the database, which the test cuts
	viaProxy, err := pgxpool.New(context.Background(), proxy.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(viaProxy.Close)
	a := newEffectApplier(viaProxy, cfg.Service)

	proxy.stop()
	sent := envelopes(t, okEvent, 5)
	declareQueue(t, cfg)
	bustest.Publish(t, cfg, sent...)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil)) // every retry while down logs
	runBatchConsumer(t, cfg, bus.BatchConfig{Size: 16, Wait: 10 * time.Millisecond}, a, nil, quiet)
	eventually(t, 10*time.Second, "batches failing", func() bool { return a.failed.Load() >= 3 })
	if n := bustest.Depth(t, cfg.DeadLetterQueue()); n != 0 {
		t.Fatalf("%d events dead-lettered while the database was down, want none", n)
	}

	proxy.start()
	eventually(t, 15*time.Second, "the events applied once the database is back", func() bool {
		return handledCount(t, direct, cfg.Service) == len(sent)
	})
	if n := queryInt(t, direct, `SELECT count(*) FROM effects`); n != len(sent) {
		t.Errorf("%d effects, want %d", n, len(sent))
	}
	if n := bustest.Depth(t, cfg.DeadLetterQueue()); n != 0 {
		t.Errorf("%d events dead-lettered, want none", n)
	}
}

// partitionedApplier splits a batch by tenant into concurrent transactions.
type partitionedApplier struct{ *effectApplier }

func (partitionedApplier) PartitionKey(env events.EventEnvelope) uint64 {
	return uint64(env.TenantID[15])
}

func TestABatchSplitByKeyIsAppliedInConcurrentTransactionsAndAcknowledgedOnce(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	log := testLogger(t)
	pool := effectsDB(t)
	a := partitionedApplier{newEffectApplier(pool, cfg.Service)}

	// Two tenants whose keys fall in different transactions, and a poison event in one of them.
	even, odd := uuid.New(), uuid.New()
	even[15], odd[15] = 2, 3
	var sent []events.EventEnvelope
	for i := range 20 {
		env := envelope(t, okEvent, map[string]any{"n": i})
		env.TenantID = even
		if i%2 == 1 {
			env.TenantID = odd
		}
		sent = append(sent, env)
	}
	poison := envelope(t, poisonEvent, map[string]any{})
	poison.TenantID = odd
	declareQueue(t, cfg)
	bustest.Publish(t, cfg, append(sent, poison)...)
	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dlq.Close() })
	c, err := bus.NewBatchConsumer(cfg, bus.BatchConfig{Size: len(sent) + 1, Wait: 5 * time.Second, Concurrency: 2}, a, dlq, nil, log, "test.#")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	eventually(t, 10*time.Second, "the batch applied", func() bool { return handledCount(t, pool, cfg.Service) == len(sent) })
	dead := bustest.Read(t, bustest.Channel(t), cfg.DeadLetterQueue(), 1, 10*time.Second)
	if id := dead[0].MessageId; id != poison.EventID.String() {
		t.Errorf("dead letter %s, want the poison event %s", id, poison.EventID)
	}
	// The even tenant's 10 events in one transaction, the odd tenant's one by one after its
	// transaction failed on the poison event.
	if n := queryInt(t, pool, `SELECT count(DISTINCT xmin::text) FROM effects`); n != 11 {
		t.Errorf("effects written by %d transactions, want 11", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM effects`); n != len(sent) {
		t.Errorf("%d effects, want %d", n, len(sent))
	}
	// Every delivery was acknowledged: none goes back to the queue when the consumer stops.
	eventually(t, 10*time.Second, "the batch acknowledged", func() bool { return a.batches.Load() == 1 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := bustest.Depth(t, cfg.ServiceQueue()); n != 0 {
		t.Errorf("%d deliveries back in the queue, want none", n)
	}
}
