-- name: UpsertUserBan :execrows
-- The ban of the newest event (event_time, then event_id) holds; an older one changes nothing.
INSERT INTO user_bans AS b (user_id, tenant_id, banned_by, reason, unblock_date, event_time, event_id)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (user_id) DO UPDATE SET
    tenant_id = EXCLUDED.tenant_id, banned_by = EXCLUDED.banned_by, reason = EXCLUDED.reason,
    unblock_date = EXCLUDED.unblock_date, event_time = EXCLUDED.event_time, event_id = EXCLUDED.event_id
WHERE (b.event_time, b.event_id) < (EXCLUDED.event_time, EXCLUDED.event_id);

-- name: UpsertTenantSuspension :execrows
-- The suspension of the newest event (event_time, then event_id) holds.
INSERT INTO tenant_suspensions AS s (tenant_id, reason, suspended_at, event_time, event_id)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (tenant_id) DO UPDATE SET
    reason = EXCLUDED.reason, suspended_at = EXCLUDED.suspended_at,
    event_time = EXCLUDED.event_time, event_id = EXCLUDED.event_id
WHERE (s.event_time, s.event_id) < (EXCLUDED.event_time, EXCLUDED.event_id);

-- name: ListCallerBlocks :many
-- The ban of a user and the suspension of its tenant, ended ones included (the caller decides at
-- its time): one round trip per request.
SELECT 'user_banned'::text AS cause, reason, event_time AS since, unblock_date AS until
FROM user_bans WHERE user_id = sqlc.arg(user_id)::uuid
UNION ALL
SELECT 'tenant_suspended'::text, reason, suspended_at, NULL::timestamptz
FROM tenant_suspensions WHERE tenant_id = sqlc.arg(tenant_id)::uuid;

-- name: ListBlocksOfMembers :many
-- The bans of an organization's members and the suspensions of their tenants, ended ones
-- included (the caller decides at its time).
SELECT m.user_id, 'user_banned'::text AS cause, b.reason, b.event_time AS since, b.unblock_date AS until
FROM memberships m
JOIN user_bans b ON b.user_id = m.user_id
WHERE m.organization_id = sqlc.arg(organization_id)::uuid
UNION ALL
SELECT m.user_id, 'tenant_suspended'::text, s.reason, s.suspended_at, NULL::timestamptz
FROM memberships m
JOIN tenant_suspensions s ON s.tenant_id = m.tenant_id
WHERE m.organization_id = sqlc.arg(organization_id)::uuid;
