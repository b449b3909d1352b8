package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func (s *Store) endpointFromRow(r db.WebhookEndpoint) (domain.Endpoint, error) {
	return endpointOpenedWith(r, s.openSecret)
}

// endpointOpenedWith is the endpoint of row r, its secrets opened by open.
func endpointOpenedWith(r db.WebhookEndpoint, open secretOpener) (domain.Endpoint, error) {
	secret, err := open(r.ID, r.Secret, false)
	if err != nil {
		return domain.Endpoint{}, err
	}
	ep := domain.Endpoint{ID: r.ID, TenantID: r.TenantID, URL: r.Url, EventTypes: r.EventTypes, Description: r.Description,
		Enabled: r.Enabled, DisabledReason: r.DisabledReason, Secret: secret, PreviousSecretExpiresAt: utc(r.PreviousSecretExpiresAt),
		SecretRotatedAt: utc(r.SecretRotatedAt), ConsecutiveFailures: int(r.ConsecutiveFailures), CreatedAt: r.CreatedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC()}
	if len(r.PreviousSecret) > 0 {
		if ep.PreviousSecret, err = open(r.ID, r.PreviousSecret, true); err != nil {
			return domain.Endpoint{}, err
		}
	}
	if ep.EventTypes == nil {
		ep.EventTypes = []string{}
	}
	return ep, nil
}

func deliveryFromRow(r db.WebhookDelivery) domain.Delivery {
	return domain.Delivery{ID: r.ID, EndpointID: r.EndpointID, TenantID: r.TenantID, EventID: r.EventID, EventType: r.EventType,
		Body: r.Body, Status: domain.DeliveryStatus(r.Status), Attempts: int(r.Attempts), ResponseCode: intp(r.ResponseCode),
		LatencyMS: intp(r.LatencyMs), LastError: r.LastError, NextAttemptAt: utc(r.NextAttemptAt), LastAttemptAt: utc(r.LastAttemptAt),
		ReplayOf: r.ReplayOf, CreatedAt: r.CreatedAt.UTC()}
}

// CreateEndpoint implements domain.WebhookStore.
func (s *Store) CreateEndpoint(ctx context.Context, ep domain.Endpoint) (domain.Endpoint, error) {
	sealed, err := s.sealSecret(ep.ID, ep.Secret)
	if err != nil {
		return domain.Endpoint{}, err
	}
	r, err := s.q.CreateEndpoint(ctx, db.CreateEndpointParams{ID: ep.ID, TenantID: ep.TenantID, Url: ep.URL,
		EventTypes: ep.EventTypes, Description: ep.Description, Secret: sealed, Now: ep.CreatedAt})
	if err != nil {
		return domain.Endpoint{}, translate(fmt.Errorf("create endpoint: %w", err), "webhook endpoint")
	}
	return s.endpointFromRow(r)
}

// GetEndpoint implements domain.WebhookStore.
func (s *Store) GetEndpoint(ctx context.Context, id uuid.UUID) (domain.Endpoint, error) {
	r, err := s.q.GetEndpoint(ctx, id)
	if err != nil {
		return domain.Endpoint{}, translate(err, "webhook endpoint")
	}
	return s.endpointFromRow(r)
}

// ListEndpoints implements domain.WebhookStore.
func (s *Store) ListEndpoints(ctx context.Context, tenant *uuid.UUID, p domain.Page) ([]domain.Endpoint, error) {
	at, _, id := after(p)
	rows, err := s.q.ListEndpoints(ctx, db.ListEndpointsParams{TenantID: tenant, AfterTime: at, AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list endpoints: %w", err)
	}
	out := make([]domain.Endpoint, 0, len(rows))
	for _, r := range rows {
		ep, err := s.endpointFromRow(r)
		if err != nil {
			return nil, err
		}
		out = append(out, ep)
	}
	return out, nil
}

// UpdateEndpoint implements domain.WebhookStore.
func (s *Store) UpdateEndpoint(ctx context.Context, id uuid.UUID, change func(*domain.Endpoint) error) (domain.Endpoint, error) {
	var out domain.Endpoint
	err := pgxdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		r, err := q.GetEndpointForUpdate(ctx, id)
		if err != nil {
			return translate(err, "webhook endpoint")
		}
		ep, err := s.endpointFromRow(r)
		if err != nil {
			return err
		}
		if err := change(&ep); err != nil {
			return err
		}
		r, err = q.UpdateEndpoint(ctx, db.UpdateEndpointParams{ID: id, Url: ep.URL, EventTypes: ep.EventTypes,
			Description: ep.Description, Enabled: ep.Enabled, DisabledReason: ep.DisabledReason,
			ConsecutiveFailures: int32(ep.ConsecutiveFailures), Now: ep.UpdatedAt})
		if err != nil {
			return translate(fmt.Errorf("update endpoint: %w", err), "webhook endpoint")
		}
		out, err = s.endpointFromRow(r)
		return err
	})
	return out, err
}

// RotateSecret implements domain.WebhookStore: the current secret becomes the previous one
// (ending an older previous one at once).
func (s *Store) RotateSecret(ctx context.Context, id uuid.UUID, secret string, previousExpiresAt, now time.Time) (domain.Endpoint, error) {
	sealed, err := s.sealSecret(id, secret)
	if err != nil {
		return domain.Endpoint{}, err
	}
	r, err := s.q.RotateEndpointSecret(ctx, db.RotateEndpointSecretParams{ID: id, Secret: sealed,
		PreviousExpiresAt: &previousExpiresAt, Now: &now})
	if err != nil {
		return domain.Endpoint{}, translate(err, "webhook endpoint")
	}
	return s.endpointFromRow(r)
}

// DeleteEndpoint implements domain.WebhookStore.
func (s *Store) DeleteEndpoint(ctx context.Context, id uuid.UUID, now time.Time) error {
	return pgxdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		n, err := q.DeleteEndpoint(ctx, db.DeleteEndpointParams{ID: id, Now: &now})
		if err != nil {
			return fmt.Errorf("delete endpoint: %w", err)
		}
		if n == 0 {
			return translate(pgx.ErrNoRows, "webhook endpoint") // no row was deleted
		}
		return q.AbandonDeliveries(ctx, db.AbandonDeliveriesParams{EndpointID: id, Reason: str("endpoint deleted"), Now: now})
	})
}

// ListDeliveries implements domain.WebhookStore.
func (s *Store) ListDeliveries(ctx context.Context, endpoint uuid.UUID, status *string, p domain.Page) ([]domain.Delivery, error) {
	at, _, id := after(p)
	rows, err := s.q.ListDeliveries(ctx, db.ListDeliveriesParams{EndpointID: endpoint, Status: status, AfterTime: at,
		AfterID: id, MaxRows: maxRows(p)})
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	out := make([]domain.Delivery, len(rows))
	for i, r := range rows {
		out[i] = deliveryFromRow(r)
	}
	return out, nil
}

// GetDelivery implements domain.WebhookStore (deliveries of deleted endpoints are gone).
func (s *Store) GetDelivery(ctx context.Context, id uuid.UUID) (domain.Delivery, error) {
	r, err := s.q.GetDelivery(ctx, id)
	if err != nil {
		return domain.Delivery{}, translate(err, "webhook delivery")
	}
	return deliveryFromRow(r), nil
}

// InsertReplay implements domain.WebhookStore.
func (s *Store) InsertReplay(ctx context.Context, original domain.Delivery, id uuid.UUID, now time.Time) (domain.Delivery, error) {
	origID := original.ID
	r, err := s.q.InsertDelivery(ctx, db.InsertDeliveryParams{ID: id, EndpointID: original.EndpointID, TenantID: original.TenantID,
		EventID: original.EventID, EventType: original.EventType, Body: original.Body, Now: &now, ReplayOf: &origID})
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("replay: %w", err)
	}
	return deliveryFromRow(r), nil
}

// asyncCommit begins a transaction whose commit does not wait for the disk, in the one round
// trip of its BEGIN.
var asyncCommit = pgx.TxOptions{BeginQuery: "BEGIN; SET LOCAL synchronous_commit = off"}

// dispatchTx runs fn in a transaction whose commit does not wait for the disk: claims and
// attempt records are the dispatcher's hot path, and losing one in a crash of the database
// only sends a delivery again after its lease, which at-least-once delivery allows (receivers
// deduplicate on webhook-id). The deliveries themselves are written by ingestion, durably.
func (s *Store) dispatchTx(ctx context.Context, fn func(q *db.Queries) error) error {
	return pgxdb.WithTxOptions(ctx, s.pool, asyncCommit, func(tx pgx.Tx) error {
		return fn(s.q.WithTx(tx))
	})
}

// ClaimDue implements domain.DispatchStore: oldest first, by id (ids are time-ordered).
func (s *Store) ClaimDue(ctx context.Context, now, leaseUntil time.Time, n int) ([]domain.Delivery, error) {
	var rows []db.ClaimDueDeliveriesRow
	err := s.dispatchTx(ctx, func(q *db.Queries) (err error) {
		rows, err = q.ClaimDueDeliveries(ctx, db.ClaimDueDeliveriesParams{Now: now, LeaseUntil: &leaseUntil, MaxRows: int32(n)})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	slices.SortFunc(rows, func(a, b db.ClaimDueDeliveriesRow) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	out := make([]domain.Delivery, len(rows))
	for i, r := range rows {
		out[i] = domain.Delivery{ID: r.ID, EndpointID: r.EndpointID, EventID: r.EventID, Body: r.Body, Attempts: int(r.Attempts)}
	}
	return out, nil
}

// DispatchTargets implements domain.DispatchStore.
func (s *Store) DispatchTargets(ctx context.Context, endpoints []uuid.UUID) (map[uuid.UUID]domain.DispatchTarget, error) {
	return s.dispatchTargets(ctx, endpoints, s.openSecret, func(uuid.UUID) {})
}

// dispatchTargets reads the endpoints, opening their secrets with open; a deleted endpoint's
// are not opened (nothing is signed for it) but passed to forget.
func (s *Store) dispatchTargets(ctx context.Context, endpoints []uuid.UUID, open secretOpener,
	forget func(uuid.UUID)) (map[uuid.UUID]domain.DispatchTarget, error) {
	rows, err := s.q.GetEndpointsForDispatch(ctx, endpoints)
	if err != nil {
		return nil, fmt.Errorf("dispatch targets: %w", err)
	}
	out := make(map[uuid.UUID]domain.DispatchTarget, len(rows))
	for _, r := range rows {
		if r.DeletedAt != nil {
			forget(r.ID)
			out[r.ID] = domain.DispatchTarget{Endpoint: domain.Endpoint{ID: r.ID, TenantID: r.TenantID}, Deleted: true,
				TenantSuspended: r.TenantSuspended}
			continue
		}
		ep, err := endpointOpenedWith(db.WebhookEndpoint{ID: r.ID, TenantID: r.TenantID, Url: r.Url, EventTypes: r.EventTypes,
			Description: r.Description, Enabled: r.Enabled, DisabledReason: r.DisabledReason, Secret: r.Secret,
			PreviousSecret: r.PreviousSecret, PreviousSecretExpiresAt: r.PreviousSecretExpiresAt, SecretRotatedAt: r.SecretRotatedAt,
			ConsecutiveFailures: r.ConsecutiveFailures, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}, open)
		if err != nil {
			return nil, err
		}
		out[r.ID] = domain.DispatchTarget{Endpoint: ep, TenantSuspended: r.TenantSuspended}
	}
	return out, nil
}

// attemptRow is one element of RecordAttempts' jsonb array.
type attemptRow struct {
	ID            uuid.UUID  `json:"id"`
	Status        string     `json:"status"`
	Attempted     int        `json:"attempted"`
	ResponseCode  *int       `json:"response_code"`
	LatencyMS     *int       `json:"latency_ms"`
	LastError     *string    `json:"last_error"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	LastAttemptAt *time.Time `json:"last_attempt_at"`
	At            time.Time  `json:"at"`
}

// RecordAttempts implements domain.DispatchStore: the outcomes of a batch and its endpoints'
// failure counts in one transaction, in three statements whatever the batch's size; an
// endpoint that reaches disableAfter is disabled and its pending deliveries are given up.
// Endpoint rows are locked before delivery rows and each kind in id order, as DeleteEndpoint
// does, so concurrent batches and deletes cannot deadlock.
func (s *Store) RecordAttempts(ctx context.Context, recs []domain.AttemptRecord, disableAfter int) error {
	if len(recs) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(recs))
	rows := make([]attemptRow, len(recs))
	for i, r := range recs {
		ids[i] = r.DeliveryID
		rows[i] = attemptRow{ID: r.DeliveryID, Status: string(r.Status), ResponseCode: r.ResponseCode, LatencyMS: r.LatencyMS,
			LastError: r.LastError, NextAttemptAt: r.NextAttemptAt, At: r.At}
		if r.Attempted {
			rows[i].Attempted, rows[i].LastAttemptAt = 1, &recs[i].At
		}
	}
	attempts, err := appendAttemptRows(make([]byte, 0, 320*len(rows)), rows)
	if err != nil {
		return err
	}
	settle := settlement(recs)
	return s.dispatchTx(ctx, func(q *db.Queries) error {
		var disabled []uuid.UUID
		if len(settle.Ids) > 0 {
			settle.Threshold = int32(disableAfter)
			settle.Reason = fmt.Sprintf("%d deliveries in a row failed after all their retries", disableAfter)
			settle.Now = recs[len(recs)-1].At
			changed, err := q.SettleEndpoints(ctx, settle)
			if err != nil {
				return fmt.Errorf("count endpoint failures: %w", err)
			}
			for _, c := range changed {
				if c.GaveUp {
					disabled = append(disabled, c.ID)
				}
			}
		}
		if err := q.RecordAttempts(ctx, db.RecordAttemptsParams{Attempts: attempts, Ids: ids}); err != nil {
			return fmt.Errorf("record attempts: %w", err)
		}
		for _, id := range disabled {
			if err := q.AbandonDeliveries(ctx, db.AbandonDeliveriesParams{EndpointID: id, Reason: str("endpoint disabled"),
				Now: settle.Now}); err != nil {
				return fmt.Errorf("give up the deliveries of a disabled endpoint: %w", err)
			}
		}
		return nil
	})
}

// settlement folds a batch's records, in the order they completed, into each endpoint's
// change of failure count: a success resets it, a delivery out of retries adds one. Endpoints
// with neither are left out.
func settlement(recs []domain.AttemptRecord) db.SettleEndpointsParams {
	var p db.SettleEndpointsParams
	at := map[uuid.UUID]int{}
	for _, r := range recs {
		if !r.Succeeded && !r.Exhausted {
			continue
		}
		i, ok := at[r.EndpointID]
		if !ok {
			i = len(p.Ids)
			at[r.EndpointID] = i
			p.Ids, p.Resets, p.Failures = append(p.Ids, r.EndpointID), append(p.Resets, false), append(p.Failures, 0)
		}
		if r.Succeeded {
			p.Resets[i], p.Failures[i] = true, 0
		} else {
			p.Failures[i]++
		}
	}
	return p
}

// PurgeDeleted implements domain.DispatchStore.
func (s *Store) PurgeDeleted(ctx context.Context, before time.Time) (int64, error) {
	return s.q.PurgeDeletedEndpoints(ctx, before)
}
