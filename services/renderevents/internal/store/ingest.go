// Package store keeps the read models in PostgreSQL (sqlc, gen/db/renderevents) and
// implements what internal/app needs from them. sqlc row types never leave it.
package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// JobsChannel is the PostgreSQL notification channel of job state changes; its payload is
// a comma-separated list of job ids.
const JobsChannel = "renderevents_jobs"

// maxNotifyIDs keeps a notification payload under PostgreSQL's 8000-byte limit.
const maxNotifyIDs = 200

// Store is the PostgreSQL store of the service.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
	ring *seal.Keyring
}

// New returns a store on pool; ring seals webhook secrets at rest, each bound to its endpoint.
func New(pool *pgxpool.Pool, ring *seal.Keyring) *Store {
	return &Store{pool: pool, q: db.New(pool), ring: ring}
}

// Ping reports whether the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// conflictAttempts bounds how often a batch is applied when it keeps losing races with
// concurrent batches (each lost race means another batch committed).
const conflictAttempts = 5

// ApplyNew implements domain.IngestStore: one transaction records the batch's new event ids
// in the inbox (bus.HandleBatchOnce) and applies them. A transaction that lost a race with a
// concurrent one (a deadlock, or a job it meant to insert that the other inserted first) is
// run again: it then finds what the other committed.
func (s *Store) ApplyNew(ctx context.Context, consumer string, evs []domain.Event,
	fn func(ctx context.Context, tx domain.IngestTx, fresh []domain.Event) error) error {
	for attempt := 1; ; attempt++ {
		err := s.applyNew(ctx, consumer, evs, fn)
		if attempt == conflictAttempts || !lostRace(err) {
			return err
		}
	}
}

// lostRace reports whether err ended a transaction that a concurrent one got in the way of.
func lostRace(err error) bool {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return false
	}
	return pg.Code == pgxdb.CodeDeadlockDetected || pg.Code == pgxdb.CodeSerializationFailure ||
		pg.Code == pgxdb.CodeUniqueViolation && pg.ConstraintName == "render_jobs_pkey"
}

func (s *Store) applyNew(ctx context.Context, consumer string, evs []domain.Event,
	fn func(ctx context.Context, tx domain.IngestTx, fresh []domain.Event) error) error {
	ids := make([]uuid.UUID, 0, len(evs))
	for _, ev := range evs {
		ids = append(ids, ev.ID)
	}
	return pgxdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
		freshIDs, err := bus.HandleBatchOnce(ctx, tx, consumer, ids)
		if err != nil || len(freshIDs) == 0 {
			return err
		}
		isNew := make(map[uuid.UUID]bool, len(freshIDs))
		for _, id := range freshIDs {
			isNew[id] = true
		}
		fresh := make([]domain.Event, 0, len(freshIDs))
		for _, ev := range evs {
			if isNew[ev.ID] {
				fresh = append(fresh, ev)
				delete(isNew, ev.ID) // a duplicate within the batch counts once
			}
		}
		w := pgxdb.Defer(tx)
		keyLookupsOnly(ctx, w)
		if err := fn(ctx, &ingestTx{q: db.New(w), w: w}, fresh); err != nil {
			return err
		}
		return w.Close(ctx)
	})
}

// keyLookupsOnly keeps the planner on the indexes for the rest of an ingest transaction,
// whose statements all find their rows by key. LockJobs looks a batch's hundreds of jobs up
// with job_id = ANY(...): on a table whose statistics lag behind its growth (a fresh one, or
// one growing fast, as during a backlog) the planner chose a sequential scan comparing every
// row with every id (12 % of PostgreSQL's CPU in a 100k drain). The setting is queued with
// the transaction's first writes: no round trip of its own.
func keyLookupsOnly(ctx context.Context, w *pgxdb.Deferred) {
	_, _ = w.Exec(ctx, "SET LOCAL enable_seqscan = off") // queued: an error comes with the next read
}

// ApplyOnce implements domain.IngestStore with bus.HandleOnce.
func (s *Store) ApplyOnce(ctx context.Context, consumer string, ev domain.Event,
	fn func(ctx context.Context, tx domain.IngestTx) error) (bool, error) {
	return bus.HandleOnce(ctx, s.pool, consumer, ev.ID, func(ctx context.Context, tx pgx.Tx) error {
		w := pgxdb.Defer(tx)
		if err := fn(ctx, &ingestTx{q: db.New(w), w: w}); err != nil {
			return err
		}
		return w.Close(ctx)
	})
}

// ingestTx is a batch's transaction; its writes are deferred (pgxdb.Deferred) and sent
// together with the next read, and the last of them with the COMMIT.
type ingestTx struct {
	q *db.Queries
	w *pgxdb.Deferred
	// unstored are the jobs LockJobs found no row of: SaveJobs inserts them.
	unstored map[uuid.UUID]bool
}

func (t *ingestTx) LockJobs(ctx context.Context, refs []domain.JobRef) (map[uuid.UUID]*domain.Job, error) {
	ids := make([]uuid.UUID, 0, len(refs))
	for _, r := range refs {
		ids = append(ids, r.JobID)
	}
	rows, err := t.q.LockJobs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("lock jobs: %w", err)
	}
	out := make(map[uuid.UUID]*domain.Job, len(refs))
	for _, r := range rows {
		out[r.JobID] = jobFromRow(r)
	}
	for _, r := range refs {
		if out[r.JobID] == nil {
			out[r.JobID] = newJob(r)
			if t.unstored == nil {
				t.unstored = map[uuid.UUID]bool{}
			}
			t.unstored[r.JobID] = true
		}
	}
	return out, nil
}

// newJob is a job not stored yet, as its row would read when created by its first event.
func newJob(r domain.JobRef) *domain.Job {
	created := r.Time.Add(-time.Duration(r.Time.Nanosecond() % 1000)) // timestamptz keeps microseconds
	return jobFromRow(db.RenderJob{JobID: r.JobID, TenantID: r.TenantID, CreatedAt: created, UpdatedAt: created})
}

// SaveJobs writes the jobs in one statement: it updates those LockJobs found and inserts the
// others.
func (t *ingestTx) SaveJobs(ctx context.Context, jobs []*domain.Job) error {
	p := writeJobsParams(jobs, func(j *domain.Job) bool { return !t.unstored[j.ID] })
	if err := t.q.WriteJobs(ctx, p); err != nil {
		return fmt.Errorf("save jobs: %w", err)
	}
	for _, j := range jobs {
		delete(t.unstored, j.ID)
	}
	return nil
}

func (t *ingestTx) AppendTimeline(ctx context.Context, entries []domain.TimelineEntry) error {
	n := len(entries)
	p := db.InsertTimelineParams{JobID: make([]uuid.UUID, 0, n), EventID: make([]uuid.UUID, 0, n),
		EventType: make([]string, 0, n), EventTime: make([]time.Time, 0, n), Applied: make([]bool, 0, n),
		Data: make([]json.RawMessage, 0, n)}
	for _, e := range entries {
		p.JobID, p.EventID, p.EventType = append(p.JobID, e.JobID), append(p.EventID, e.EventID), append(p.EventType, e.EventType)
		p.EventTime, p.Applied, p.Data = append(p.EventTime, e.EventTime), append(p.Applied, e.Applied), append(p.Data, e.Data)
	}
	if err := t.q.InsertTimeline(ctx, p); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

func (t *ingestTx) AddUsage(ctx context.Context, deltas domain.UsageDeltas) error {
	keys := make([]domain.UsageKey, 0, len(deltas))
	for k := range deltas {
		keys = append(keys, k)
	}
	// One order for every transaction, so that concurrent consumers cannot deadlock.
	sortUsageKeys(keys)
	n := len(keys)
	p := db.AddUsageParams{
		TenantID: make([]uuid.UUID, 0, n), Period: make([]string, 0, n), PeriodStart: make([]pgtype.Date, 0, n),
		JobsCompleted: make([]int64, 0, n), JobsFailed: make([]int64, 0, n), JobsCancelled: make([]int64, 0, n),
		RenderComputeSeconds: make([]int64, 0, n), OutputSeconds: make([]float64, 0, n), OutputBytes: make([]int64, 0, n),
		PaidMinorByPrice:  make([]json.RawMessage, 0, n),
		PaymentsSucceeded: make([]int64, 0, n), PaymentsSucceededMinor: make([]int64, 0, n),
		PaymentsFailed: make([]int64, 0, n), PaymentsFailedMinor: make([]int64, 0, n),
		PaymentsRefunded: make([]int64, 0, n), PaymentsRefundedMinor: make([]int64, 0, n),
	}
	for _, k := range keys {
		u := deltas[k]
		paid, err := json.Marshal(nonNilMap(u.PaidMinorByPriceType))
		if err != nil {
			return err
		}
		p.TenantID, p.Period = append(p.TenantID, k.TenantID), append(p.Period, string(k.Period))
		p.PeriodStart = append(p.PeriodStart, pgtype.Date{Time: k.Start, Valid: true})
		p.JobsCompleted, p.JobsFailed = append(p.JobsCompleted, u.JobsCompleted), append(p.JobsFailed, u.JobsFailed)
		p.JobsCancelled = append(p.JobsCancelled, u.JobsCancelled)
		p.RenderComputeSeconds = append(p.RenderComputeSeconds, u.RenderComputeSeconds)
		p.OutputSeconds, p.OutputBytes = append(p.OutputSeconds, u.OutputSeconds), append(p.OutputBytes, u.OutputBytes)
		p.PaidMinorByPrice = append(p.PaidMinorByPrice, paid)
		p.PaymentsSucceeded = append(p.PaymentsSucceeded, u.PaymentsSucceeded)
		p.PaymentsSucceededMinor = append(p.PaymentsSucceededMinor, u.PaymentsSucceededMinor)
		p.PaymentsFailed, p.PaymentsFailedMinor = append(p.PaymentsFailed, u.PaymentsFailed), append(p.PaymentsFailedMinor, u.PaymentsFailedMinor)
		p.PaymentsRefunded = append(p.PaymentsRefunded, u.PaymentsRefunded)
		p.PaymentsRefundedMinor = append(p.PaymentsRefundedMinor, u.PaymentsRefundedMinor)
	}
	if err := t.q.AddUsage(ctx, p); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	return nil
}

// MergeReadModels implements domain.IngestTx: the events are applied in the order of the
// row each one locks first (by table, then key), so that two transactions never wait for
// each other's rows in opposite orders.
func (t *ingestTx) MergeReadModels(ctx context.Context, evs []domain.Event) error {
	ordered := slices.Clone(evs)
	slices.SortStableFunc(ordered, func(a, b domain.Event) int {
		ra, ka := mergeLock(a)
		rb, kb := mergeLock(b)
		if ra != rb {
			return ra - rb
		}
		return bytes.Compare(ka[:], kb[:])
	})
	for _, ev := range ordered {
		var err error
		switch ev.Payload.(type) {
		case events.RenderSnapshotRequestedV1Payload, events.RenderSnapshotReadyV1Payload:
			err = t.applySnapshot(ctx, ev)
		default:
			err = t.applyIdentity(ctx, ev)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mergeLock names the row an event's merge locks first: its table's rank and its key
// (a plan event locks its user before the plan).
func mergeLock(ev domain.Event) (int, uuid.UUID) {
	switch p := ev.Payload.(type) {
	case events.IdentityTenantCreatedV1Payload:
		return 0, p.TenantID
	case events.IdentityTenantSuspendedV1Payload:
		return 0, p.TenantID
	case events.IdentityUserRegisteredV1Payload:
		return 1, p.UserID
	case events.IdentityUserEmailVerifiedV1Payload:
		return 1, p.UserID
	case events.IdentityUserBannedV1Payload:
		return 1, p.UserID
	case events.IdentityPlanActivatedV1Payload:
		return 1, p.UserID
	case events.IdentityPlanExpiredV1Payload:
		return 1, p.UserID
	case events.IdentityApiKeyCreatedV1Payload:
		return 2, p.APIKeyID
	case events.IdentityApiKeyRevokedV1Payload:
		return 2, p.APIKeyID
	case events.RenderSnapshotRequestedV1Payload:
		return 3, p.SnapshotID
	case events.RenderSnapshotReadyV1Payload:
		return 3, p.SnapshotID
	}
	return 4, ev.ID // payments: a refund row of its own, or none
}

func (t *ingestTx) applySnapshot(ctx context.Context, ev domain.Event) error {
	switch p := ev.Payload.(type) {
	case events.RenderSnapshotRequestedV1Payload:
		return t.q.UpsertSnapshotRequested(ctx, db.UpsertSnapshotRequestedParams{
			SnapshotID: p.SnapshotID, TenantID: ev.TenantID, UserID: ev.UserID, SavedProjectID: &p.SavedProjectID,
			SceneKey: &p.SceneKey, FrameNumber: i32(&p.FrameNumber), Cached: p.Cached != nil && *p.Cached, EventTime: &ev.Time,
		})
	case events.RenderSnapshotReadyV1Payload:
		var size *int64
		if p.SizeBytes != nil {
			v := int64(*p.SizeBytes)
			size = &v
		}
		return t.q.UpsertSnapshotReady(ctx, db.UpsertSnapshotReadyParams{
			SnapshotID: p.SnapshotID, TenantID: ev.TenantID, UserID: ev.UserID, SavedProjectID: p.SavedProjectID,
			SceneKey: p.SceneKey, FrameNumber: i32(p.FrameNumber), ImageUrl: &p.ImageURL, ThumbnailUrl: p.ThumbnailURL,
			Width: i32(p.Width), Height: i32(p.Height), SizeBytes: size, DurationMs: i32(p.DurationMs),
			ExpiresAt: utc(p.ExpiresAt), EventTime: &ev.Time,
		})
	}
	return fmt.Errorf("not a snapshot event: %s", ev.Type)
}

func (t *ingestTx) applyIdentity(ctx context.Context, ev domain.Event) error {
	at := &ev.Time
	tenantOr := func(id *uuid.UUID) uuid.UUID {
		if id != nil {
			return *id
		}
		return ev.TenantID
	}
	switch p := ev.Payload.(type) {
	case events.IdentityTenantCreatedV1Payload:
		return t.q.UpsertTenantCreated(ctx, db.UpsertTenantCreatedParams{TenantID: p.TenantID, Slug: &p.Slug,
			Kind: str(string(p.Kind)), Name: p.Name, ContactEmail: p.ContactEmail, EventTime: at})
	case events.IdentityTenantSuspendedV1Payload:
		when := at
		if p.SuspendedAt != nil {
			when = utc(p.SuspendedAt)
		}
		return t.q.UpsertTenantSuspended(ctx, db.UpsertTenantSuspendedParams{TenantID: p.TenantID, SuspendedAt: when,
			Reason: &p.Reason, EventTime: ev.Time})
	case events.IdentityUserRegisteredV1Payload:
		return t.q.UpsertUserRegistered(ctx, db.UpsertUserRegisteredParams{UserID: p.UserID, TenantID: p.TenantID,
			RegisterMode: str(string(p.RegisterMode)), Email: p.Email, PhoneNumber: p.PhoneNumber, FullName: p.FullName, EventTime: at})
	case events.IdentityUserEmailVerifiedV1Payload:
		return t.q.UpsertUserEmailVerified(ctx, db.UpsertUserEmailVerifiedParams{UserID: p.UserID,
			TenantID: tenantOr(p.TenantID), Email: &p.Email, EventTime: at})
	case events.IdentityUserBannedV1Payload:
		return t.q.UpsertUserBanned(ctx, db.UpsertUserBannedParams{UserID: p.UserID, TenantID: tenantOr(p.TenantID),
			EventTime: at, BannedBy: &p.BannedBy, Reason: &p.Reason, UnblockDate: utc(p.UnblockDate)})
	case events.IdentityPlanActivatedV1Payload:
		if err := t.q.EnsureUser(ctx, db.EnsureUserParams{UserID: p.UserID, TenantID: tenantOr(p.TenantID), EventTime: ev.Time}); err != nil {
			return err
		}
		return t.q.UpsertPlanActivated(ctx, db.UpsertPlanActivatedParams{UserPlanID: p.UserPlanID, UserID: p.UserID,
			TenantID: tenantOr(p.TenantID), PlanCode: &p.PlanCode, PlanID: p.PlanID, PlanName: p.PlanName,
			ExpiresAt: utc(&p.ExpiresAt), SecondsCharge: i32(p.SecondsCharge), StorageGb: i32(p.StorageGb),
			ParallelRenders: i32(p.ParallelRenders), PaymentID: p.PaymentID, EventTime: at})
	case events.IdentityPlanExpiredV1Payload:
		if err := t.q.EnsureUser(ctx, db.EnsureUserParams{UserID: p.UserID, TenantID: tenantOr(p.TenantID), EventTime: ev.Time}); err != nil {
			return err
		}
		return t.q.UpsertPlanExpired(ctx, db.UpsertPlanExpiredParams{UserPlanID: p.UserPlanID, UserID: p.UserID,
			TenantID: tenantOr(p.TenantID), PlanCode: p.PlanCode, EventTime: at})
	case events.IdentityApiKeyCreatedV1Payload:
		scopes := p.Scopes
		if scopes == nil {
			scopes = []string{}
		}
		return t.q.UpsertAPIKeyCreated(ctx, db.UpsertAPIKeyCreatedParams{ApiKeyID: p.APIKeyID, TenantID: p.TenantID,
			Name: &p.Name, Environment: str(string(p.Environment)), KeyPrefix: p.KeyPrefix, Last4: p.Last4,
			Scopes: scopes, CreatedByUserID: &p.CreatedByUserID, EventTime: at})
	case events.IdentityApiKeyRevokedV1Payload:
		return t.q.UpsertAPIKeyRevoked(ctx, db.UpsertAPIKeyRevokedParams{ApiKeyID: p.APIKeyID, TenantID: p.TenantID,
			EventTime: at, RevokedByUserID: &p.RevokedByUserID, Reason: &p.Reason})
	case domain.PaymentRefunded:
		return t.q.InsertPaymentRefund(ctx, db.InsertPaymentRefundParams{EventID: ev.ID, TenantID: ev.TenantID,
			PaymentID: p.PaymentID, CorrelationID: ev.CorrelationID, RefundAmountMinor: p.RefundAmountMinor, RefundedAt: ev.Time})
	case domain.PaymentSucceeded, domain.PaymentFailed:
		return nil // metered only (usage)
	}
	return fmt.Errorf("not an identity event: %s", ev.Type)
}

func (t *ingestTx) DeliverableEndpoints(ctx context.Context, tenants []uuid.UUID) ([]domain.EndpointFilter, error) {
	rows, err := t.q.ListDeliverableEndpoints(ctx, tenants)
	if err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	out := make([]domain.EndpointFilter, 0, len(rows))
	for _, r := range rows {
		out = append(out, domain.EndpointFilter{ID: r.ID, TenantID: r.TenantID, EventTypes: r.EventTypes})
	}
	return out, nil
}

func (t *ingestTx) InsertDeliveries(ctx context.Context, ds []domain.Delivery) error {
	params := make([]db.InsertDeliveriesParams, 0, len(ds))
	for _, d := range ds {
		params = append(params, db.InsertDeliveriesParams{ID: d.ID, EndpointID: d.EndpointID, TenantID: d.TenantID,
			EventID: d.EventID, EventType: d.EventType, Body: d.Body, Status: string(d.Status),
			NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt, UpdatedAt: d.CreatedAt})
	}
	if _, err := t.q.InsertDeliveries(ctx, params); err != nil {
		return fmt.Errorf("deliveries: %w", err)
	}
	return nil
}

func (t *ingestTx) NotifyJobsChanged(ctx context.Context, ids []uuid.UUID) error {
	for len(ids) > 0 {
		n := min(len(ids), maxNotifyIDs)
		parts := make([]string, n)
		for i, id := range ids[:n] {
			parts[i] = id.String()
		}
		if _, err := t.w.Exec(ctx, "SELECT pg_notify($1, $2)", JobsChannel, strings.Join(parts, ",")); err != nil {
			return fmt.Errorf("notify: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

func sortUsageKeys(keys []domain.UsageKey) {
	less := func(a, b domain.UsageKey) int {
		if a.Period != b.Period {
			return strings.Compare(string(a.Period), string(b.Period))
		}
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return strings.Compare(a.TenantID.String(), b.TenantID.String())
	}
	for i := 1; i < len(keys); i++ { // insertion sort: a batch touches few periods
		for j := i; j > 0 && less(keys[j-1], keys[j]) > 0; j-- {
			keys[j-1], keys[j] = keys[j], keys[j-1]
		}
	}
}

func nonNilMap(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

func i32(p *int) *int32 {
	if p == nil {
		return nil
	}
	v := int32(*p)
	return &v
}

func intp(p *int32) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

func str(s string) *string { return &s }

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}
