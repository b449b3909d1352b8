-- name: UpsertTenantCreated :exec
INSERT INTO tenants (tenant_id, slug, kind, name, contact_email, created_at, updated_at)
VALUES (@tenant_id, @slug, @kind, @name, @contact_email, @event_time, @event_time)
ON CONFLICT (tenant_id) DO UPDATE SET
    slug = excluded.slug,
    kind = excluded.kind,
    name = excluded.name,
    contact_email = excluded.contact_email,
    created_at = excluded.created_at,
    updated_at = GREATEST(tenants.updated_at, excluded.updated_at);

-- name: UpsertTenantSuspended :exec
-- Suspension is final (no event lifts it); the earliest suspension keeps its reason.
INSERT INTO tenants (tenant_id, suspended, suspended_at, suspension_reason, updated_at)
VALUES (@tenant_id, true, @suspended_at, @reason, @event_time)
ON CONFLICT (tenant_id) DO UPDATE SET
    suspended = true,
    suspension_reason = CASE WHEN tenants.suspended_at IS NULL OR excluded.suspended_at < tenants.suspended_at
                             THEN excluded.suspension_reason ELSE tenants.suspension_reason END,
    suspended_at = LEAST(tenants.suspended_at, excluded.suspended_at),
    updated_at = GREATEST(tenants.updated_at, excluded.updated_at);

-- name: GetTenant :one
SELECT * FROM tenants WHERE tenant_id = $1 AND slug IS NOT NULL;

-- name: ListTenants :many
SELECT * FROM tenants
WHERE slug IS NOT NULL
  AND (sqlc.narg(tenant_id)::uuid IS NULL OR tenant_id = sqlc.narg(tenant_id))
  AND (sqlc.narg(suspended)::boolean IS NULL OR suspended = sqlc.narg(suspended))
  AND (sqlc.narg(after_slug)::text IS NULL
       OR (slug, tenant_id) > (sqlc.narg(after_slug)::text, sqlc.narg(after_id)::uuid))
ORDER BY slug, tenant_id
LIMIT @max_rows;

-- name: UpsertUserRegistered :exec
INSERT INTO users (user_id, tenant_id, register_mode, email, phone_number, full_name, registered_at, updated_at)
VALUES (@user_id, @tenant_id, @register_mode, @email, @phone_number, @full_name, @event_time, @event_time)
ON CONFLICT (user_id) DO UPDATE SET
    tenant_id = excluded.tenant_id,
    register_mode = excluded.register_mode,
    email = excluded.email,
    phone_number = excluded.phone_number,
    full_name = excluded.full_name,
    registered_at = excluded.registered_at,
    updated_at = GREATEST(users.updated_at, excluded.updated_at);

-- name: UpsertUserEmailVerified :exec
-- The latest verification (by event_time) names the verified email.
INSERT INTO users (user_id, tenant_id, verified_email, email_verified, verified_at, updated_at)
VALUES (@user_id, @tenant_id, @email, true, @event_time, @event_time)
ON CONFLICT (user_id) DO UPDATE SET
    verified_email = CASE WHEN users.verified_at IS NULL OR excluded.verified_at >= users.verified_at
                          THEN excluded.verified_email ELSE users.verified_email END,
    email_verified = true,
    verified_at = GREATEST(users.verified_at, excluded.verified_at),
    updated_at = GREATEST(users.updated_at, excluded.updated_at);

-- name: UpsertUserBanned :exec
-- The latest ban (by event_time) holds.
INSERT INTO users (user_id, tenant_id, banned_at, banned_by, ban_reason, unblock_date, updated_at)
VALUES (@user_id, @tenant_id, @event_time, @banned_by, @reason, @unblock_date, @event_time)
ON CONFLICT (user_id) DO UPDATE SET
    banned_by = CASE WHEN users.banned_at IS NULL OR excluded.banned_at >= users.banned_at THEN excluded.banned_by ELSE users.banned_by END,
    ban_reason = CASE WHEN users.banned_at IS NULL OR excluded.banned_at >= users.banned_at THEN excluded.ban_reason ELSE users.ban_reason END,
    unblock_date = CASE WHEN users.banned_at IS NULL OR excluded.banned_at >= users.banned_at THEN excluded.unblock_date ELSE users.unblock_date END,
    banned_at = GREATEST(users.banned_at, excluded.banned_at),
    updated_at = GREATEST(users.updated_at, excluded.updated_at);

-- name: EnsureUser :exec
INSERT INTO users (user_id, tenant_id, updated_at) VALUES (@user_id, @tenant_id, @event_time)
ON CONFLICT (user_id) DO UPDATE SET updated_at = GREATEST(users.updated_at, excluded.updated_at);

-- name: GetUser :one
SELECT * FROM users WHERE user_id = $1;

-- name: UpsertPlanActivated :exec
INSERT INTO user_plans (user_plan_id, user_id, tenant_id, plan_code, plan_id, plan_name, expires_at,
                        seconds_charge, storage_gb, parallel_renders, payment_id, activated_at, updated_at)
VALUES (@user_plan_id, @user_id, @tenant_id, @plan_code, @plan_id, @plan_name, @expires_at,
        @seconds_charge, @storage_gb, @parallel_renders, @payment_id, @event_time, @event_time)
ON CONFLICT (user_plan_id) DO UPDATE SET
    user_id = excluded.user_id,
    plan_code = excluded.plan_code,
    plan_id = excluded.plan_id,
    plan_name = excluded.plan_name,
    expires_at = excluded.expires_at,
    seconds_charge = excluded.seconds_charge,
    storage_gb = excluded.storage_gb,
    parallel_renders = excluded.parallel_renders,
    payment_id = excluded.payment_id,
    activated_at = excluded.activated_at,
    updated_at = GREATEST(user_plans.updated_at, excluded.updated_at);

-- name: UpsertPlanExpired :exec
INSERT INTO user_plans (user_plan_id, user_id, tenant_id, plan_code, expired_at, updated_at)
VALUES (@user_plan_id, @user_id, @tenant_id, @plan_code, @event_time, @event_time)
ON CONFLICT (user_plan_id) DO UPDATE SET
    plan_code = COALESCE(user_plans.plan_code, excluded.plan_code),
    expired_at = LEAST(user_plans.expired_at, excluded.expired_at),
    updated_at = GREATEST(user_plans.updated_at, excluded.updated_at);

-- name: GetCurrentPlan :one
-- The plan activated last; a plan known only from its expiry counts after activated ones.
SELECT * FROM user_plans WHERE user_id = $1
ORDER BY activated_at DESC NULLS LAST, expired_at DESC NULLS LAST, user_plan_id DESC
LIMIT 1;

-- name: UpsertAPIKeyCreated :exec
INSERT INTO api_keys (api_key_id, tenant_id, name, environment, key_prefix, last4, scopes, created_by_user_id, created_at)
VALUES (@api_key_id, @tenant_id, @name, @environment, @key_prefix, @last4, @scopes, @created_by_user_id, @event_time)
ON CONFLICT (api_key_id) DO UPDATE SET
    tenant_id = excluded.tenant_id,
    name = excluded.name,
    environment = excluded.environment,
    key_prefix = excluded.key_prefix,
    last4 = excluded.last4,
    scopes = excluded.scopes,
    created_by_user_id = excluded.created_by_user_id,
    created_at = excluded.created_at;

-- name: UpsertAPIKeyRevoked :exec
INSERT INTO api_keys (api_key_id, tenant_id, revoked_at, revoked_by_user_id, revoke_reason)
VALUES (@api_key_id, @tenant_id, @event_time, @revoked_by_user_id, @reason)
ON CONFLICT (api_key_id) DO UPDATE SET
    revoked_by_user_id = CASE WHEN api_keys.revoked_at IS NULL OR excluded.revoked_at < api_keys.revoked_at THEN excluded.revoked_by_user_id ELSE api_keys.revoked_by_user_id END,
    revoke_reason = CASE WHEN api_keys.revoked_at IS NULL OR excluded.revoked_at < api_keys.revoked_at THEN excluded.revoke_reason ELSE api_keys.revoke_reason END,
    revoked_at = LEAST(api_keys.revoked_at, excluded.revoked_at);

-- name: ListAPIKeys :many
SELECT * FROM api_keys
WHERE tenant_id = @tenant_id AND name IS NOT NULL
  AND (sqlc.narg(revoked)::boolean IS NULL OR (revoked_at IS NOT NULL) = sqlc.narg(revoked))
  AND (sqlc.narg(after_time)::timestamptz IS NULL
       OR (created_at, api_key_id) < (sqlc.narg(after_time)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, api_key_id DESC
LIMIT @max_rows;

-- name: ListSuspendedTenants :many
SELECT tenant_id FROM tenants WHERE tenant_id = ANY(@tenant_ids::uuid[]) AND suspended;
