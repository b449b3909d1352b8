-- +goose Up
-- What the identity service announced about the callers: the latest ban of each user and the
-- latest suspension of each tenant. Each row keeps the event_time (and event_id, for a tie)
-- of the event that set it, so an older event delivered late never overwrites a newer one.
CREATE TABLE user_bans (
    user_id      uuid PRIMARY KEY,
    tenant_id    uuid,
    banned_by    uuid NOT NULL,
    reason       text NOT NULL,
    -- unblock_date: the ban ends then; NULL: it has no end.
    unblock_date timestamptz,
    event_time   timestamptz NOT NULL,
    event_id     uuid NOT NULL
);

CREATE TABLE tenant_suspensions (
    tenant_id    uuid PRIMARY KEY,
    reason       text NOT NULL,
    suspended_at timestamptz NOT NULL,
    event_time   timestamptz NOT NULL,
    event_id     uuid NOT NULL
);

-- The tenant of a member: the tenant_id claim of the token that created the organization or
-- accepted the invitation (NULL: unknown, or a token without one). A suspension of that tenant
-- shows on the member's record.
ALTER TABLE memberships ADD COLUMN tenant_id uuid;
CREATE INDEX memberships_tenant_idx ON memberships (tenant_id) WHERE tenant_id IS NOT NULL;

-- +goose Down
ALTER TABLE memberships DROP COLUMN tenant_id;
DROP TABLE tenant_suspensions;
DROP TABLE user_bans;
