-- name: CreateEndpoint :one
INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, description, enabled, secret, created_at, updated_at)
VALUES (@id, @tenant_id, @url, @event_types, @description, true, @secret, @now, @now)
RETURNING *;

-- name: GetEndpoint :one
SELECT * FROM webhook_endpoints WHERE id = $1 AND deleted_at IS NULL;

-- name: GetEndpointForUpdate :one
SELECT * FROM webhook_endpoints WHERE id = $1 AND deleted_at IS NULL FOR UPDATE;

-- name: ListEndpoints :many
SELECT * FROM webhook_endpoints
WHERE deleted_at IS NULL
  AND (sqlc.narg(tenant_id)::uuid IS NULL OR tenant_id = sqlc.narg(tenant_id))
  AND (sqlc.narg(after_time)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(after_time)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: UpdateEndpoint :one
UPDATE webhook_endpoints SET
    url = @url,
    event_types = @event_types,
    description = @description,
    enabled = @enabled,
    disabled_reason = @disabled_reason,
    consecutive_failures = @consecutive_failures,
    updated_at = @now
WHERE id = @id AND deleted_at IS NULL
RETURNING *;

-- name: RotateEndpointSecret :one
UPDATE webhook_endpoints SET
    previous_secret = secret,
    secret = @secret,
    previous_secret_expires_at = @previous_expires_at,
    secret_rotated_at = @now,
    updated_at = @now
WHERE id = @id AND deleted_at IS NULL
RETURNING *;

-- name: DeleteEndpoint :execrows
UPDATE webhook_endpoints SET deleted_at = @now, enabled = false, updated_at = @now
WHERE id = @id AND deleted_at IS NULL;

-- name: AbandonDeliveries :exec
-- Pending deliveries of an endpoint that was deleted or disabled are given up, and no longer
-- due. The rows are locked in id order, as RecordAttempts locks them, so the two cannot
-- deadlock.
WITH abandoned AS (
    UPDATE webhook_deliveries SET status = 'failed', last_error = @reason, next_attempt_at = NULL, updated_at = @now
    WHERE id IN (
        SELECT w.id FROM webhook_deliveries w
        WHERE w.endpoint_id = @endpoint_id AND w.status IN ('pending', 'retrying')
        ORDER BY w.id
        FOR UPDATE)
    RETURNING id)
DELETE FROM webhook_deliveries_due q USING abandoned a WHERE q.id = a.id;

-- name: ListDeliverableEndpoints :many
-- Enabled endpoints of the given tenants, except those of suspended tenants.
SELECT e.id, e.tenant_id, e.event_types FROM webhook_endpoints e
WHERE e.tenant_id = ANY(@tenant_ids::uuid[]) AND e.enabled AND e.deleted_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.tenant_id = e.tenant_id AND t.suspended);

-- name: InsertDeliveries :copyfrom
INSERT INTO webhook_deliveries (id, endpoint_id, tenant_id, event_id, event_type, body, status,
                                next_attempt_at, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: InsertDelivery :one
INSERT INTO webhook_deliveries (id, endpoint_id, tenant_id, event_id, event_type, body, status,
                                next_attempt_at, replay_of, created_at, updated_at)
VALUES (@id, @endpoint_id, @tenant_id, @event_id, @event_type, @body, 'pending', @now, @replay_of, @now, @now)
RETURNING *;

-- name: GetDelivery :one
SELECT d.* FROM webhook_deliveries d
JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.deleted_at IS NULL
WHERE d.id = $1;

-- name: ListDeliveries :many
SELECT * FROM webhook_deliveries
WHERE endpoint_id = @endpoint_id
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (sqlc.narg(after_time)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(after_time)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: ClaimDueDeliveries :many
-- Leases due deliveries to this dispatcher, oldest first (ids are time-ordered, so deliveries
-- due at the same time come in the order their events were consumed): leased_until holds the
-- lease, so another pod skips them while they are in flight and retries them if this one dies.
-- No index holds leased_until, so the update can stay on the row's page (HOT). RETURNING keeps
-- no order: the store sorts the rows by id. It returns what an attempt needs, nothing more:
-- these rows are the dispatcher's hot path. The ids are an array, not an IN (subquery), so that
-- the rows are found by their key: as a semi-join, the planner read the whole table to find them.
UPDATE webhook_deliveries_due q SET leased_until = @lease_until
FROM webhook_deliveries d
WHERE q.id = ANY(ARRAY(
    SELECT w.id FROM webhook_deliveries_due w
    WHERE w.next_attempt_at <= @now AND (w.leased_until IS NULL OR w.leased_until <= @now)
    ORDER BY w.next_attempt_at, w.id
    LIMIT @max_rows
    FOR UPDATE SKIP LOCKED))
  AND d.id = q.id
RETURNING d.id, d.endpoint_id, d.event_id, d.body, d.attempts;

-- name: GetEndpointsForDispatch :many
SELECT e.*, COALESCE(t.suspended, false)::boolean AS tenant_suspended
FROM webhook_endpoints e
LEFT JOIN tenants t ON t.tenant_id = e.tenant_id
WHERE e.id = ANY(@ids::uuid[]);

-- name: RecordAttempts :exec
-- Records the outcomes of a batch of attempts (a jsonb array of objects named like the
-- columns): a delivery to retry is due at its new time, any other is due no more. The rows are
-- locked in id order, as AbandonDeliveries locks them, so the two cannot deadlock. No column
-- written here is indexed, so the update stays on the row's page (HOT).
WITH recorded AS (
UPDATE webhook_deliveries d SET
    status = a.status,
    attempts = d.attempts + a.attempted,
    response_code = a.response_code,
    latency_ms = a.latency_ms,
    last_error = a.last_error,
    next_attempt_at = a.next_attempt_at,
    last_attempt_at = COALESCE(a.last_attempt_at, d.last_attempt_at),
    updated_at = a.at
FROM jsonb_to_recordset(@attempts::jsonb) AS a(id uuid, status text, attempted int, response_code int,
    latency_ms int, last_error text, next_attempt_at timestamptz, last_attempt_at timestamptz, at timestamptz)
WHERE d.id = a.id
  AND d.id IN (SELECT w.id FROM webhook_deliveries w WHERE w.id = ANY(@ids::uuid[]) ORDER BY w.id FOR UPDATE)
RETURNING d.id, d.status, d.next_attempt_at
), settled AS (
    DELETE FROM webhook_deliveries_due q USING recorded r
    WHERE q.id = r.id AND (r.status NOT IN ('pending', 'retrying') OR r.next_attempt_at IS NULL)
)
INSERT INTO webhook_deliveries_due (id, next_attempt_at)
SELECT r.id, r.next_attempt_at FROM recorded r
WHERE r.status IN ('pending', 'retrying') AND r.next_attempt_at IS NOT NULL
-- A delivery given up while its attempt was in flight (its endpoint deleted) has no due row
-- left: its retry makes it due again, and that attempt gives it up for good.
ON CONFLICT (id) DO UPDATE SET next_attempt_at = EXCLUDED.next_attempt_at, leased_until = NULL;

-- name: SettleEndpoints :many
-- Applies a batch's outcomes to its endpoints' failure counts: reset (a delivery succeeded),
-- then plus failures (deliveries that used up their retries after the last success); at the
-- threshold the endpoint is disabled. Only endpoints whose count changes are written, locked
-- in id order; gave_up says a failure left the endpoint disabled (its deliveries are given up).
WITH changes AS (
    SELECT unnest(@ids::uuid[]) AS id, unnest(@resets::boolean[]) AS reset, unnest(@failures::int[]) AS failures
)
UPDATE webhook_endpoints e SET
    consecutive_failures = CASE WHEN o.reset THEN 0 ELSE e.consecutive_failures END + o.failures,
    enabled = CASE WHEN CASE WHEN o.reset THEN 0 ELSE e.consecutive_failures END + o.failures >= @threshold::int
                   THEN false ELSE e.enabled END,
    disabled_reason = CASE WHEN CASE WHEN o.reset THEN 0 ELSE e.consecutive_failures END + o.failures >= @threshold::int
                           AND e.enabled THEN @reason::text ELSE e.disabled_reason END,
    updated_at = CASE WHEN o.failures > 0 THEN @now ELSE e.updated_at END
FROM changes o
WHERE e.id = o.id
  AND e.id IN (
    SELECT w.id FROM webhook_endpoints w JOIN changes c ON c.id = w.id
    WHERE c.failures > 0 OR (c.reset AND w.consecutive_failures <> 0)
    ORDER BY w.id
    FOR UPDATE OF w)
RETURNING e.id, (o.failures > 0 AND NOT e.enabled)::boolean AS gave_up;

-- name: PurgeDeletedEndpoints :execrows
-- Delivery records of endpoints deleted more than the retention ago go, then the endpoints.
WITH gone AS (
    SELECT we.id FROM webhook_endpoints we WHERE we.deleted_at < @before::timestamptz
), purged AS (
    DELETE FROM webhook_deliveries WHERE endpoint_id IN (SELECT id FROM gone)
)
DELETE FROM webhook_endpoints WHERE id IN (SELECT id FROM gone);

-- name: ListEndpointsWithLegacySecrets :many
-- Endpoints (deleted ones too) with a secret not in the keyring's format: in the clear or in
-- the single-key format.
SELECT id, secret, previous_secret FROM webhook_endpoints
WHERE substring(secret FROM 1 FOR 1) <> '\x01'::bytea
   OR substring(previous_secret FROM 1 FOR 1) <> '\x01'::bytea;

-- name: ResealEndpointSecrets :execrows
-- Compare-and-set: a row rotated or re-sealed meanwhile (another instance) is left alone.
UPDATE webhook_endpoints SET secret = @secret, previous_secret = sqlc.narg(previous_secret)::bytea
WHERE id = @id AND secret = @old_secret
  AND previous_secret IS NOT DISTINCT FROM sqlc.narg(old_previous_secret)::bytea;
