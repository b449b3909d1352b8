package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// attemptTimeout bounds one attempt: a 2xx within it is a success (the contract says 15 s).
const attemptTimeout = 15 * time.Second

// longClaims is how many batches one claim takes at most while the due queue is long: a claim
// that came back full is followed by one twice its size, up to this, so that a backlog is
// drained with fewer, larger claims and records (each costs a transaction whatever its size).
const longClaims = 4

// DispatcherConfig tunes the dispatcher.
type DispatcherConfig struct {
	Retry        domain.RetryPolicy
	DisableAfter int           // failed deliveries in a row that disable an endpoint
	PollInterval time.Duration // how often an idle dispatcher looks for due deliveries
	Lease        time.Duration // least time a claimed delivery is hidden from other instances
	Workers      int           // concurrent attempts, to one endpoint or several
	Batch        int           // deliveries claimed, and their outcomes recorded, at once (up to longClaims times it while many are due)
	Retention    time.Duration // how long deliveries of deleted endpoints are kept
	Observer     DispatchObserver
}

// Outcomes of a delivery attempt, as DispatchObserver.Settled reports them.
const (
	OutcomeDelivered = "delivered" // the endpoint answered 2xx
	OutcomeRetrying  = "retrying"  // the attempt failed; another is scheduled
	OutcomeGivenUp   = "given_up"  // the attempt failed and the retry schedule is exhausted
	OutcomeAbandoned = "abandoned" // not sent: endpoint deleted or disabled, tenant suspended
)

// Results of one HTTP attempt, as DispatchObserver.Attempted reports them.
const (
	AttemptSucceeded      = "success"         // 2xx
	AttemptRejected       = "http_error"      // any other status
	AttemptTransportError = "transport_error" // no answer: refused, timeout, TLS, policy
)

// Stages at which the dispatcher itself fails, as DispatchObserver.Failed reports them.
const (
	StageClaim  = "claim"  // claiming due deliveries or loading their endpoints
	StageRecord = "record" // recording a batch's attempts (retried after the lease)
)

// DispatchObserver counts what the dispatcher does.
type DispatchObserver interface {
	// Attempted is one HTTP attempt: its result and how long the endpoint took.
	Attempted(result string, latency time.Duration)
	// Settled is the outcome of a claimed delivery.
	Settled(outcome string)
	// Failed is an error of the dispatcher at stage.
	Failed(stage string)
}

type noDispatchObserver struct{}

func (noDispatchObserver) Attempted(string, time.Duration) {}
func (noDispatchObserver) Settled(string)                  {}
func (noDispatchObserver) Failed(string)                   {}

// Dispatcher delivers due webhook deliveries, durably: every state lives in the
// deliveries table, so a restart or a second instance loses nothing.
type Dispatcher struct {
	store  domain.DispatchStore
	sender domain.WebhookSender
	cfg    DispatcherConfig
	log    *slog.Logger
	now    func() time.Time
	wake   chan struct{}
}

// NewDispatcher returns a dispatcher.
func NewDispatcher(store domain.DispatchStore, sender domain.WebhookSender, cfg DispatcherConfig, log *slog.Logger) *Dispatcher {
	if cfg.DisableAfter <= 0 {
		cfg.DisableAfter = domain.DisableAfterFailures
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Lease <= 0 {
		cfg.Lease = time.Minute
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Retention <= 0 {
		cfg.Retention = 30 * 24 * time.Hour
	}
	if len(cfg.Retry.Schedule) == 0 {
		cfg.Retry.Schedule = domain.DefaultRetrySchedule
	}
	if cfg.Observer == nil {
		cfg.Observer = noDispatchObserver{}
	}
	return &Dispatcher{store: store, sender: sender, cfg: cfg, log: log, now: time.Now, wake: make(chan struct{}, 1)}
}

// Nudge makes an idle dispatcher look for due deliveries at once.
func (d *Dispatcher) Nudge() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run dispatches until ctx ends. Three stages overlap, so that neither the database nor the
// endpoints wait for the other: a claimer leases batches of due deliveries (oldest first; larger
// ones while many are due) into a queue of one batch, Workers goroutines take them in that order
// and attempt them, and a recorder stores the outcomes in bulk, those that end within
// recordGather of the first and during its last transaction. When ctx ends, no more is claimed; what was claimed is attempted (with
// receivers that answer at once, in milliseconds) and every outcome is recorded, so a
// restart does not leave claimed deliveries waiting for their lease.
func (d *Dispatcher) Run(ctx context.Context) error {
	// Attempts and records outlive a shutdown signal.
	actx := context.WithoutCancel(ctx)
	queue := make(chan claimedDelivery, d.cfg.Batch)
	// Workers go on while the recorder's transaction runs: outcomes wait here, up to the most
	// one transaction records.
	outcomes := make(chan domain.AttemptRecord, d.cfg.Batch*longClaims)
	var workers sync.WaitGroup
	for range d.cfg.Workers {
		workers.Go(func() {
			for c := range queue {
				outcomes <- d.attempt(actx, c.delivery, c.target)
			}
		})
	}
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		d.recordAll(actx, outcomes)
	}()
	d.claimAll(ctx, queue)
	close(queue)
	workers.Wait()
	close(outcomes)
	<-recorded
	return nil
}

// claimedDelivery is a leased delivery with its endpoint.
type claimedDelivery struct {
	delivery domain.Delivery
	target   *signingTarget
}

// signingTarget is an endpoint with its signing keys, decoded once for all its deliveries in
// a claim (keysErr when its secrets do not decode: each of them fails signing).
type signingTarget struct {
	domain.DispatchTarget
	keys    domain.SigningKeys
	keysErr error
}

// signingTargets are the targets of a claim's endpoints with their keys; an endpoint without
// a target (gone from the table) maps to a zero one, which is given up as deleted.
func signingTargets(endpoints []uuid.UUID, targets map[uuid.UUID]domain.DispatchTarget) map[uuid.UUID]*signingTarget {
	out := make(map[uuid.UUID]*signingTarget, len(endpoints))
	for _, id := range endpoints {
		t := &signingTarget{DispatchTarget: targets[id]}
		if !t.Deleted && t.Endpoint.Enabled && !t.TenantSuspended {
			t.keys, t.keysErr = t.Endpoint.SigningKeys()
		}
		out[id] = t
	}
	return out
}

// claimAll leases due deliveries into queue until ctx ends, waiting for a nudge or the poll
// interval when none is due; it blocks while queue is full. A full claim is followed at once
// by one twice as large (up to longClaims batches), a partial one by a batch.
func (d *Dispatcher) claimAll(ctx context.Context, queue chan<- claimedDelivery) {
	purge := time.NewTicker(time.Hour)
	defer purge.Stop()
	size := d.cfg.Batch
	for ctx.Err() == nil {
		n, err := d.claim(ctx, queue, size)
		if err != nil && ctx.Err() == nil {
			d.cfg.Observer.Failed(StageClaim)
			d.log.WarnContext(ctx, "webhook dispatch failed", "error", err)
		}
		if n == size && err == nil {
			size = min(2*size, longClaims*d.cfg.Batch)
			continue // more may be due
		}
		size = d.cfg.Batch
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-time.After(d.cfg.PollInterval):
		case <-purge.C:
			if n, err := d.store.PurgeDeleted(ctx, d.now().Add(-d.cfg.Retention)); err != nil {
				d.log.WarnContext(ctx, "purging deleted webhook endpoints failed", "error", err)
			} else if n > 0 {
				d.log.InfoContext(ctx, "purged deleted webhook endpoints", "count", n)
			}
		}
	}
}

// claim leases up to size deliveries into queue and returns how many it leased.
func (d *Dispatcher) claim(ctx context.Context, queue chan<- claimedDelivery, size int) (int, error) {
	now := d.now().UTC()
	claimed, err := d.store.ClaimDue(ctx, now, now.Add(d.lease(size)), size)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	ids := make([]uuid.UUID, 0, len(claimed))
	seen := make(map[uuid.UUID]bool, len(claimed))
	for _, c := range claimed {
		if !seen[c.EndpointID] { // each endpoint once, however many of its deliveries are claimed
			seen[c.EndpointID] = true
			ids = append(ids, c.EndpointID)
		}
	}
	targets, err := d.store.DispatchTargets(ctx, ids)
	if err != nil {
		return len(claimed), err // attempted again once their lease ends
	}
	signing := signingTargets(ids, targets)
	for _, c := range claimed {
		queue <- claimedDelivery{delivery: c, target: signing[c.EndpointID]}
	}
	return len(claimed), nil
}

// lease is how long a claim of size deliveries hides them from other claims: at least Lease,
// and long enough for every worker to time out on each delivery of the queue and of the claim,
// so that a slow endpoint does not get a delivery twice.
func (d *Dispatcher) lease(size int) time.Duration {
	rounds := (d.cfg.Batch + size + d.cfg.Workers - 1) / d.cfg.Workers
	return max(d.cfg.Lease, time.Duration(rounds+1)*attemptTimeout)
}

// recordGather is how long the recorder waits, after an outcome, for more to fill its
// transaction: a transaction costs the database about as much for a few outcomes as for
// hundreds, and outcomes need not be stored the instant their attempts end.
const recordGather = 20 * time.Millisecond

// recordAll records outcomes until the channel closes: each transaction takes the outcomes
// that ended within recordGather of the first, and any that ended while the previous
// transaction ran, up to longClaims batches.
func (d *Dispatcher) recordAll(ctx context.Context, outcomes <-chan domain.AttemptRecord) {
	recs := make([]domain.AttemptRecord, 0, d.cfg.Batch*longClaims)
	gather := time.NewTimer(recordGather)
	for rec := range outcomes {
		recs = append(recs[:0], rec)
		gather.Reset(recordGather)
	more:
		for len(recs) < cap(recs) {
			select {
			case rec, ok := <-outcomes:
				if !ok {
					break more
				}
				recs = append(recs, rec)
			case <-gather.C:
				break more
			}
		}
		d.record(ctx, recs)
	}
}

// record stores outcomes; if that fails, their deliveries are attempted again after the lease.
func (d *Dispatcher) record(ctx context.Context, recs []domain.AttemptRecord) {
	if err := d.store.RecordAttempts(ctx, recs, d.cfg.DisableAfter); err != nil {
		d.cfg.Observer.Failed(StageRecord)
		d.log.ErrorContext(ctx, "recording webhook attempts failed; they are attempted again after the lease",
			"deliveries", len(recs), "error", err)
		return
	}
	for _, rec := range recs {
		d.cfg.Observer.Settled(outcomeOf(rec))
	}
}

func (d *Dispatcher) attempt(ctx context.Context, del domain.Delivery, t *signingTarget) domain.AttemptRecord {
	now := d.now().UTC()
	rec := domain.AttemptRecord{DeliveryID: del.ID, EndpointID: del.EndpointID, At: now}
	giveUp := func(reason string) domain.AttemptRecord {
		rec.Status, rec.LastError = domain.DeliveryFailed, &reason
		return rec
	}
	switch {
	case t.Endpoint.ID == uuid.Nil || t.Deleted:
		return giveUp("endpoint deleted")
	case !t.Endpoint.Enabled:
		return giveUp("endpoint disabled")
	case t.TenantSuspended:
		return giveUp("tenant suspended")
	}
	id := del.EventID.String()
	if t.keysErr != nil {
		return giveUp("signing failed")
	}
	sig, err := t.keys.SignatureHeader(id, now, del.Body)
	if err != nil {
		return giveUp("signing failed")
	}
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	status, err := d.sender.Send(sctx, domain.WebhookRequest{URL: t.Endpoint.URL, ID: id, Timestamp: now,
		Signature: sig, Body: del.Body})
	cancel()
	took := time.Since(start)
	latency := int(took.Milliseconds())
	rec.Attempted, rec.LatencyMS = true, &latency
	if err == nil {
		rec.ResponseCode = &status
		if status >= 200 && status < 300 {
			d.cfg.Observer.Attempted(AttemptSucceeded, took)
			rec.Status, rec.Succeeded = domain.DeliverySucceeded, true
			return rec
		}
		d.cfg.Observer.Attempted(AttemptRejected, took)
		msg := fmt.Sprintf("endpoint answered %d", status)
		rec.LastError = &msg
	} else {
		d.cfg.Observer.Attempted(AttemptTransportError, took)
		msg := err.Error()
		rec.LastError = &msg
	}
	if delay, ok := d.cfg.Retry.NextDelay(del.Attempts + 1); ok {
		next := now.Add(delay)
		rec.Status, rec.NextAttemptAt = domain.DeliveryRetrying, &next
		return rec
	}
	rec.Status, rec.Exhausted = domain.DeliveryFailed, true
	return rec
}

// outcomeOf names what an attempt record did to its delivery.
func outcomeOf(rec domain.AttemptRecord) string {
	switch {
	case rec.Succeeded:
		return OutcomeDelivered
	case rec.Status == domain.DeliveryRetrying:
		return OutcomeRetrying
	case rec.Attempted:
		return OutcomeGivenUp
	}
	return OutcomeAbandoned
}
