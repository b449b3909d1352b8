package bus_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/components/forwarder"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// outboxFixture is a database with the bus tables, a forwarder reaching RabbitMQ through a
// proxy the test can cut, and a queue bound to everything it forwards.
type outboxFixture struct {
	pool      *pgxpool.Pool
	proxy     *tcpProxy
	pub       *failureCounter
	delivered <-chan amqp.Delivery
}

func newOutboxFixture(t *testing.T) *outboxFixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, bus.Migrations())
	cfg := bustest.Config(t)
	cfg.Outbox.AckDeadline = 300 * time.Millisecond // attempts also time out during the outage
	f := &outboxFixture{pool: pool, delivered: bustest.BindEvents(t, cfg, "render.#")}

	f.proxy = startProxy(t, bustest.URL())
	viaProxy := cfg
	viaProxy.AMQPURL = f.proxy.url
	amqpPub, err := bus.NewAMQPPublisher(viaProxy, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = amqpPub.Close() })
	f.pub = &failureCounter{Publisher: amqpPub}
	runForwarder(t, cfg, pool, f.pub)
	return f
}

// write commits n events to the outbox, in one transaction or one each. Their event types
// alternate, so the forwarder publishes each in a call of its own.
func (f *outboxFixture) write(t *testing.T, n int, oneTx bool) map[uuid.UUID]bool {
	t.Helper()
	ctx := context.Background()
	ids := map[uuid.UUID]bool{}
	var batches [][]events.EventEnvelope
	for i := range n {
		env := envelope(t, []string{"render.job.completed.v1", "render.job.failed.v1"}[i%2], map[string]any{"render_job_id": uuid.New()})
		ids[env.EventID] = true
		if oneTx && i > 0 {
			batches[0] = append(batches[0], env)
		} else {
			batches = append(batches, []events.EventEnvelope{env})
		}
	}
	for _, b := range batches {
		if err := pgxdb.WithTx(ctx, f.pool, func(tx pgx.Tx) error { return bus.PublishEventsInTx(ctx, tx, b...) }); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// expectDelivered waits until every event of want reached the queue; a duplicate is
// allowed (delivery is at least once), an unknown event is not.
func (f *outboxFixture) expectDelivered(t *testing.T, want map[uuid.UUID]bool) {
	t.Helper()
	got := map[uuid.UUID]bool{}
	for len(got) < len(want) {
		env := decodeDelivery(t, bustest.Receive(t, f.delivered, 15*time.Second))
		if !want[env.EventID] {
			t.Fatalf("delivered unexpected event %s", env.EventID)
		}
		got[env.EventID] = true
	}
	eventually(t, 5*time.Second, "outbox emptied", func() bool { return outboxRows(t, f.pool) == 0 })
}

// failUntilRestart waits until the forwarder has failed for longer than an attempt's
// deadline, checks that nothing was delivered or dropped meanwhile, and restores the network.
func (f *outboxFixture) failUntilRestart(t *testing.T, pending int) {
	t.Helper()
	eventually(t, 10*time.Second, "forwarder failing while the broker is unreachable", func() bool {
		return f.pub.failures.Load() >= 10 || outboxRows(t, f.pool) != pending
	})
	select {
	case d := <-f.delivered:
		t.Fatalf("delivered %s while the broker was unreachable", d.MessageId)
	default:
	}
	if n := outboxRows(t, f.pool); n != pending {
		t.Fatalf("outbox holds %d rows during the outage, want %d", n, pending)
	}
	f.proxy.start()
}

func TestEventsWrittenWhileTheBrokerIsUnreachableAreDeliveredOnceItIsBack(t *testing.T) {
	t.Parallel()
	f := newOutboxFixture(t)

	f.expectDelivered(t, f.write(t, 1, true))

	f.proxy.stop()
	during := f.write(t, 5, false)
	for id := range f.write(t, 5, true) {
		during[id] = true
	}
	f.failUntilRestart(t, len(during))
	f.expectDelivered(t, during)
}

func TestAnOutageInTheMiddleOfForwardingLosesNothing(t *testing.T) {
	t.Parallel()
	f := newOutboxFixture(t)

	var once sync.Once
	cut := func() { once.Do(f.proxy.stop) }
	f.pub.afterSuccess.Store(&cut)
	rows := f.write(t, 10, true) // one transaction: the forwarder finds them together

	first := decodeDelivery(t, bustest.Receive(t, f.delivered, 10*time.Second))
	delete(rows, first.EventID)
	eventually(t, 5*time.Second, "the forwarded row deleted, the others kept", func() bool {
		return outboxRows(t, f.pool) == len(rows)
	})
	f.failUntilRestart(t, len(rows))
	f.expectDelivered(t, rows)
}

func TestARolledBackTransactionPublishesNothing(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t, bus.Migrations())
	ctx := context.Background()
	rollback := errors.New("rollback")
	err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if err := bus.PublishEventsInTx(ctx, tx, envelope(t, "render.job.failed.v1", map[string]any{})); err != nil {
			return err
		}
		if n := outboxRowsIn(t, tx); n != 1 {
			t.Errorf("outbox rows inside the transaction = %d, want 1", n)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if n := outboxRows(t, pool); n != 0 {
		t.Errorf("outbox rows after rollback = %d, want 0", n)
	}
}

func outboxRows(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM watermill_outbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func outboxRowsIn(t *testing.T, tx pgx.Tx) int {
	t.Helper()
	var n int
	if err := tx.QueryRow(context.Background(), `SELECT count(*) FROM watermill_outbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func runForwarder(t *testing.T, cfg bus.Config, pool *pgxpool.Pool, pub message.Publisher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := bus.RunForwarder(ctx, cfg, pool, pub, testLogger(t)); err != nil {
			t.Errorf("forwarder: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// failureCounter counts the publishes the broker refused or never confirmed.
// afterSuccess, when set, runs after a confirmed publish.
type failureCounter struct {
	message.Publisher
	failures     atomic.Int32
	afterSuccess atomic.Pointer[func()]
}

func (f *failureCounter) Publish(topic string, msgs ...*message.Message) error {
	err := f.Publisher.Publish(topic, msgs...)
	switch {
	case err != nil:
		f.failures.Add(1)
	case f.afterSuccess.Load() != nil:
		(*f.afterSuccess.Load())()
	}
	return err
}

// tcpProxy forwards TCP connections to the broker; stop cuts every connection and refuses
// new ones, a real network fault without touching the broker.
type tcpProxy struct {
	t      *testing.T
	target string
	addr   string
	url    string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, brokerURL string) *tcpProxy {
	t.Helper()
	u, err := url.Parse(brokerURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{t: t, target: u.Host, addr: "127.0.0.1:0", conns: map[net.Conn]struct{}{}}
	p.start()
	u.Host = p.addr
	p.url = u.String()
	t.Cleanup(p.stop)
	return p
}

func (p *tcpProxy) start() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy listen on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.pipe(c)
		}
	}()
}

func (p *tcpProxy) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()
	for _, dir := range [][2]net.Conn{{client, server}, {server, client}} {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			_, _ = io.Copy(dir[0], dir[1])
			_ = dir[0].Close()
			_ = dir[1].Close()
		}()
	}
}

func (p *tcpProxy) stop() {
	p.mu.Lock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestTheForwarderKeepsTheOrderOfWritingAcrossBatches writes more events than a batch holds
// in one transaction, with rows in watermill forwarder's own format and a row that is no
// envelope among them, and forwards them with two forwarders (two replicas): every event
// arrives once, in the order written, and the unreadable row stays in the table, out of the way.
func TestTheForwarderKeepsTheOrderOfWritingAcrossBatches(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.NewDB(t, bus.Migrations())
	cfg := bustest.Config(t)
	delivered := bustest.BindEvents(t, cfg, "render.#")
	ctx := context.Background()

	var want []uuid.UUID
	err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		for i := range 600 {
			env := envelope(t, "render.job.completed.v1", map[string]any{"render_job_id": uuid.New()})
			want = append(want, env.EventID)
			if i == 300 {
				if _, err := tx.Exec(ctx, `INSERT INTO watermill_outbox (uuid, payload) VALUES ($1, '{"not": "an envelope"}')`, uuid.NewString()); err != nil {
					return err
				}
			}
			if i%100 == 7 {
				// As watermill's forwarder component writes it.
				if err := watermillOutboxPublish(tx, env.EventType, toMessage(t, env)); err != nil {
					return err
				}
				continue
			}
			if err := bus.PublishEventsInTx(ctx, tx, env); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pub := publisher(t, cfg)
	other := publisher(t, cfg)
	runForwarder(t, cfg, pool, pub)
	runForwarder(t, cfg, pool, other)

	for i, id := range want {
		got := decodeDelivery(t, bustest.Receive(t, delivered, 15*time.Second))
		if got.EventID != id {
			t.Fatalf("delivery %d is %s, want %s (the order of writing)", i, got.EventID, id)
		}
	}
	eventually(t, 5*time.Second, "forwarded rows deleted", func() bool { return outboxRows(t, pool) == 1 })
	var acked bool
	if err := pool.QueryRow(ctx, `SELECT acked FROM watermill_outbox`).Scan(&acked); err != nil || !acked {
		t.Fatalf("the unreadable row: acked = %v, %v; want it kept and marked acked", acked, err)
	}
	select {
	case d := <-delivered:
		t.Fatalf("delivered %s more than once or unexpectedly", d.MessageId)
	case <-time.After(100 * time.Millisecond):
	}
}

// watermillOutboxPublish writes msg to the outbox with watermill-sql's publisher wrapped by
// watermill's forwarder component.
func watermillOutboxPublish(tx pgx.Tx, topic string, msg *message.Message) error {
	pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: wsql.PostgreSQLQueueSchema{}}, watermill.NopLogger{})
	if err != nil {
		return err
	}
	return forwarder.NewPublisher(pub, forwarder.PublisherConfig{ForwarderTopic: bus.OutboxTopic}).Publish(topic, msg)
}
