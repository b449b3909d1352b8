// Package bus is the services' messaging: events in the seed-001 envelope on RabbitMQ
// (watermill, watermill-amqp v3) or in process (watermill GoChannel), published through a
// transactional outbox (watermill-sql's queue table, forwarded in confirmed batches) and
// consumed idempotently (inbox), with retries and a dead-letter queue.
//
// # Topology
//
//   - events: durable topic exchange; routing key = watermill topic = event name
//     ("render.job.completed.v1"). NewAMQPPublisher publishes there with publisher confirms.
//   - <service>.events: the durable queue of a consuming service, bound with its keys
//     ("render.#", "identity.user.registered.v1"); instances compete on it (NewSubscriber).
//     It is a quorum queue unless Config.QueueType says classic, and so is
//     <service>.dead-letter; a queue of the other type existing under the name fails the
//     declaration (PRECONDITION_FAILED), with the ways to migrate in the error. The quorum
//     <service>.events dead-letters to <service>.dead-letter what the broker gives up on
//     (past its delivery limit).
//   - render.progress: auto-delete fanout exchange, routing key render.job.progress.{job_id}
//     (ProgressRoutingKey); each instance reads it through its own exclusive auto-delete
//     queue (NewProgressPublisher, NewProgressSubscriber).
//   - dead-letter: durable direct exchange with one durable queue <service>.dead-letter per
//     service (NewDeadLetterPublisher).
//
// # Configuration
//
// Config holds the names and tunings; the bus reads no environment. A service embeds
// EnvConfig (AMQP_URL, BUS_SERVICE, EVENTS_EXCHANGE, DEAD_LETTER_EXCHANGE,
// CONSUMER_MAX_RETRIES, BUS_QUEUE_TYPE) in its configuration struct, ProgressEnvConfig
// (PROGRESS_EXCHANGE) when it relays progress and BatchEnvConfig (CONSUMER_BATCH_SIZE,
// CONSUMER_BATCH_WAIT, CONSUMER_BATCH_CONCURRENCY, CONSUMER_PREFETCH) when it consumes in
// batches; each variable's
// default is written once, in its tag. EnvConfig.BusConfig(name) makes the Config. Tests isolate themselves with bustest,
// which names every exchange and queue uniquely.
//
// # Envelope
//
// The envelope is the generated events.EventEnvelope of gen/events (events.NewEvent builds
// one for an event of the AsyncAPI document, NewEnvelope for a message it does not
// declare); data stays raw and is validated by the consumer with the generated payload
// types. Message makes the watermill message: UUID = event_id, metadata (AMQP headers)
// event_type, tenant_id and the W3C traceparent of the context; the trace id also fills
// trace_id. Decode reads it back, validated against the envelope schema; ContextWithTrace
// gives the handler the producer's trace.
//
// # Publishing: the outbox
//
// A service writes its events in the transaction of the state change and a forwarder moves
// them to the broker; an event is lost neither when the broker is down nor when the
// transaction rolls back:
//
//	err := pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
//		// ... change state ...
//		return bus.PublishEventsInTx(ctx, tx, env)
//	})
//
//	pub, err := bus.NewAMQPPublisher(cfg, log)
//	go bus.RunForwarder(ctx, cfg, pool, pub, log) // until ctx ends
//
// The tables come from Migrations (goose set "bus"), applied with the service's own.
// Delivery is at least once: consumers dedupe. The forwarder reads up to 256 rows per
// transaction in the order they were written, sends them all and then waits for the broker's
// confirmations, so a batch costs about one round trip to the broker; rows are deleted only
// once confirmed. Its rows are watermill forwarder's envelopes, so either forwarder can move
// rows the other wrote.
//
// # Consuming
//
//	sub, err := bus.NewSubscriber(cfg, log, "render.#", "identity.#")
//	dlq, err := bus.NewDeadLetterPublisher(cfg, log)
//	router, err := bus.NewRouter(cfg, dlq, metrics, log, bus.WithPing(pool.Ping)) // metrics may be nil
//	bus.Consume(router, "renderevents", sub, bus.Handlers{
//		events.RenderJobCompletedV1: func(ctx context.Context, env events.EventEnvelope) error {
//			data, err := events.Decode(env.EventType, env.Data)
//			if err != nil {
//				return bus.Permanent(err) // schema-invalid: no retry
//			}
//			_, err = bus.HandleOnce(ctx, pool, "renderevents", env.EventID,
//				func(ctx context.Context, tx pgx.Tx) error { /* apply data */ return nil })
//			return err
//		},
//	})
//	err = router.Run(ctx)
//
// A handler error (a panic counts as one) is retried with exponential backoff
// (Config.Retry); when the retries run out, or at once for a Permanent error or an invalid
// envelope, the message goes to <service>.dead-letter with headers dead_letter_reason (one
// line of at most 1 KiB, each repeated prefix once),
// dead_letter_permanent, dead_letter_attempts, dead_letter_handler and dead_letter_at, and
// is acked so the queue keeps moving. With WithPing, a message whose retries ran out while
// the database does not answer goes back to the queue instead (after Retry.MaxInterval), and
// one is dead-lettered only after an attempt made while the database answered; Start gives its
// router the pool's Ping. HandleOnce records the event id in the same transaction as the
// effect, so a redelivered event changes nothing.
//
// # Consuming in batches
//
// Where events come in volume, one transaction per event is the bottleneck. A
// BatchConsumer reads <service>.events itself and hands the service's BatchApplier up to
// BatchConfig.Size deliveries at a time: ApplyBatch applies them in one transaction whose
// HandleBatchOnce records every event id of the batch in the inbox and returns the ones not
// applied before. When a batch fails, its events are applied one by one (ApplyOne, with
// HandleOnce) with the same retries, so a bad event is isolated: a message Decode refuses or
// a Permanent error goes to the dead-letter queue at once with the reason, one that keeps
// failing after its retries too, unless the database does not answer (Ping): then the
// events go back to the queue. An event is dead-lettered for failing only after an attempt
// made while the database answered: when it comes back just as the retries end, the event is
// tried once more.
//
//	c, err := bus.NewBatchConsumer(cfg, bus.BatchConfig{Size: 256, Wait: 20 * time.Millisecond},
//		applier, dlq, metrics, log, "render.#", "identity.#")
//	err = c.Run(ctx)
//
// With a GoChannel (NewGoChannel) as both publisher and subscriber the same code runs in
// one process; Consume then subscribes one handler per event type.
//
// # Transient messages
//
// Progress ticks are worth nothing once late. NewTransientRouter handles each message once:
// one its handler refuses (an invalid envelope or payload, an error, a panic) is dropped,
// counted in bus_messages_dropped_total{event_type,reason} and logged at most once per
// DropLogInterval; it is never retried or dead-lettered, so a producer's bug cannot fill a
// durable queue at tick rate.
//
// # Observability
//
// NewPrometheusMetrics counts attempts by event type (handled, failed, dead-lettered) and
// times them (bus_message_handling_duration_seconds{event_type,outcome}); the event_type
// label is a name of the event catalogue (or one given with WithEventTypes), anything else
// is "other", and the failure counters are exported at zero from the start. Each handler runs
// in a consumer span whose parent is the producer's span, so a request and the events it
// publishes share one trace. NewBacklogCollector samples the consumer lag (depth of
// <service>.events), the dead-letter queue's depth and the outbox backlog on /metrics:
//
//	m, err := bus.NewPrometheusMetrics(tel.Registry)
//	backlog, err := bus.NewBacklogCollector(cfg, pool, tel.Registry, log, bus.BacklogOptions{})
//	defer backlog.Close()
package bus
