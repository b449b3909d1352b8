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

-- +goose Down
DROP TABLE tenant_suspensions;
DROP TABLE user_bans;
