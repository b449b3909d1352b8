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

// DispatcherConfig tunes the dispatcher.
type DispatcherConfig struct {
	Retry        domain.RetryPolicy
	DisableAfter int           // failed deliveries in a row that disable an endpoint
	PollInterval time.Duration // how often an idle dispatcher looks for due deliveries
	Lease        time.Duration // how long a claimed delivery is hidden from other instances
	Workers      int           // concurrent attempts
	Batch        int           // deliveries claimed at once
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
	StageRecord = "record" // recording an attempt (retried after the lease)
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

// Run dispatches until ctx ends; attempts in flight finish first.
func (d *Dispatcher) Run(ctx context.Context) error {
	purge := time.NewTicker(time.Hour)
	defer purge.Stop()
	for {
		n, err := d.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			d.cfg.Observer.Failed(StageClaim)
			d.log.WarnContext(ctx, "webhook dispatch failed", "error", err)
		}
		if n == d.cfg.Batch && err == nil {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
			return nil
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

// RunOnce claims and handles one batch of due deliveries and returns how many it claimed.
func (d *Dispatcher) RunOnce(ctx context.Context) (int, error) {
	now := d.now().UTC()
	claimed, err := d.store.ClaimDue(ctx, now, now.Add(d.cfg.Lease), d.cfg.Batch)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	ids := make([]uuid.UUID, 0, len(claimed))
	for _, c := range claimed {
		ids = append(ids, c.EndpointID)
	}
	targets, err := d.store.DispatchTargets(ctx, ids)
	if err != nil {
		return len(claimed), err
	}
	// Attempts outlive a shutdown signal so their outcome is recorded.
	actx := context.WithoutCancel(ctx)
	sem := make(chan struct{}, d.cfg.Workers)
	var wg sync.WaitGroup
	for _, del := range claimed {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			rec := d.attempt(actx, del, targets[del.EndpointID])
			if err := d.store.RecordAttempt(actx, rec); err != nil {
				d.cfg.Observer.Failed(StageRecord)
				d.log.ErrorContext(actx, "recording a webhook attempt failed; it is retried after the lease",
					"delivery_id", del.ID, "error", err)
				return
			}
			d.cfg.Observer.Settled(outcomeOf(rec))
		}()
	}
	wg.Wait()
	return len(claimed), nil
}

func (d *Dispatcher) attempt(ctx context.Context, del domain.Delivery, t domain.DispatchTarget) domain.AttemptRecord {
	now := d.now().UTC()
	rec := domain.AttemptRecord{DeliveryID: del.ID, EndpointID: del.EndpointID, At: now, DisableAfter: d.cfg.DisableAfter}
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
	sig, err := domain.SignatureHeader(t.Endpoint.SigningSecrets(now), del.EventID.String(), now, del.Body)
	if err != nil {
		return giveUp("signing failed")
	}
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	status, err := d.sender.Send(sctx, domain.WebhookRequest{URL: t.Endpoint.URL, ID: del.EventID.String(), Timestamp: now,
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
