package bus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

func TestTheBacklogCollectorReportsQueueDepthsAndTheOutboxBacklog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := bustest.Config(t)
	log := testLogger(t)
	pool, _ := pgtest.NewDB(t, bus.Migrations())

	// Three events wait in the outbox (no forwarder runs).
	for range 3 {
		env := envelope(t, "render.job.completed.v1", map[string]any{})
		if err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error { return bus.PublishEventsInTx(ctx, tx, env) }); err != nil {
			t.Fatal(err)
		}
	}
	// Two messages wait in the service queue, one in its dead-letter queue.
	ch := bustest.Channel(t)
	if err := bus.DeclareServiceQueue(ch, cfg, "render.#"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := ch.PublishWithContext(ctx, "", cfg.ServiceQueue(), false, false, amqp.Publishing{Body: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dlq.Close() })
	if err := dlq.Publish(cfg.DeadLetterQueue(), toMessage(t, envelope(t, "render.job.failed.v1", map[string]any{}))); err != nil {
		t.Fatal(err)
	}

	reg := prometheus.NewRegistry()
	c, err := bus.NewBacklogCollector(cfg, pool, reg, log, bus.BacklogOptions{MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	want := `
# HELP bus_backlog_up 1 when the last backlog sample of the source (amqp, postgres) succeeded.
# TYPE bus_backlog_up gauge
bus_backlog_up{source="amqp"} 1
bus_backlog_up{source="postgres"} 1
# HELP bus_outbox_messages Events written to the outbox and not yet forwarded to the broker, sampled.
# TYPE bus_outbox_messages gauge
bus_outbox_messages 3
# HELP bus_queue_messages Messages ready in the queue (consumer lag of <service>.events, depth of <service>.dead-letter), sampled.
# TYPE bus_queue_messages gauge
bus_queue_messages{queue="` + cfg.DeadLetterQueue() + `"} 1
bus_queue_messages{queue="` + cfg.ServiceQueue() + `"} 2
`
	// Publishes are confirmed, but a queue's counters may lag a moment behind.
	var lastErr error
	eventually(t, 5*time.Second, "queue depths reported", func() bool {
		lastErr = testutil.GatherAndCompare(reg, strings.NewReader(want), "bus_backlog_up", "bus_outbox_messages", "bus_queue_messages")
		return lastErr == nil
	})
	if n := testutil.CollectAndCount(c, "bus_outbox_oldest_message_age_seconds"); n != 1 {
		t.Errorf("bus_outbox_oldest_message_age_seconds samples = %d, want 1", n)
	}
}

func TestTheBacklogCollectorReportsAnUnreachableBrokerAsDown(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	proxy := startProxy(t, bustest.URL())
	proxy.stop() // nothing listens there any more
	cfg.AMQPURL = proxy.url

	reg := prometheus.NewRegistry()
	c, err := bus.NewBacklogCollector(cfg, nil, reg, testLogger(t), bus.BacklogOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	want := `
# HELP bus_backlog_up 1 when the last backlog sample of the source (amqp, postgres) succeeded.
# TYPE bus_backlog_up gauge
bus_backlog_up{source="amqp"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
