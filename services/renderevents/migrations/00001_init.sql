-- +goose Up

-- Render jobs as their events describe them. state_rank orders the life cycle
-- (0 = a row locked before its first event is applied, never visible outside the
-- transaction; 1 queued; 2 started; 3 terminal). The columns *_src remember which
-- event kind set a fact, so that a later event of a weaker kind cannot overwrite it
-- and the read model converges whatever the delivery order.
CREATE TABLE render_jobs (
    job_id                 uuid PRIMARY KEY,
    tenant_id              uuid NOT NULL,
    user_id                uuid,
    state                  text NOT NULL,
    state_rank             smallint NOT NULL DEFAULT 0,
    step                   text,
    progress               integer NOT NULL DEFAULT 0,
    saved_project_id       uuid,
    original_project_id    uuid,
    priority_queue         text,
    priority_score         integer,
    price_type             text,
    paid_price_minor       bigint,
    payment_id             uuid,
    region                 text,
    resolution             text,
    duration_sec           double precision,
    node_ids               uuid[] NOT NULL DEFAULT '{}',
    node_ids_src           smallint NOT NULL DEFAULT 0,
    current_frame          integer,
    total_frames           integer,
    eta_seconds            integer,
    refund_required        boolean,
    cancelled_by_user_id   uuid,
    export_id              uuid,
    output_url             text,
    output_duration_sec    double precision,
    output_size_bytes      bigint,
    thumbnail_url          text,
    width                  integer,
    height                 integer,
    render_compute_seconds integer,
    failed_at_step         text,
    cancelled_at_step      text,
    error_message          text,
    error_code             text,
    retry_count            integer,
    terminal_event_id      uuid,
    progress_at            timestamptz,
    created_at             timestamptz NOT NULL,
    queued_at              timestamptz,
    started_at             timestamptz,
    finished_at            timestamptz,
    updated_at             timestamptz NOT NULL
) WITH (fillfactor = 80); -- room for HOT updates: a job is updated a few times
CREATE INDEX render_jobs_tenant_created ON render_jobs (tenant_id, created_at DESC, job_id DESC);
CREATE INDEX render_jobs_created ON render_jobs (created_at DESC, job_id DESC);
CREATE INDEX render_jobs_refunds ON render_jobs (finished_at, job_id)
    WHERE state IN ('failed', 'cancelled') AND refund_required;

-- Every render job event consumed from the events exchange, once per event_id.
CREATE TABLE render_job_events (
    job_id      uuid NOT NULL,
    event_id    uuid NOT NULL,
    event_type  text NOT NULL,
    event_time  timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    applied     boolean NOT NULL,
    data        jsonb NOT NULL,
    PRIMARY KEY (job_id, event_id)
);

CREATE TABLE snapshots (
    snapshot_id      uuid PRIMARY KEY,
    tenant_id        uuid NOT NULL,
    user_id          uuid,
    saved_project_id uuid,
    scene_key        text,
    frame_number     integer,
    cached           boolean NOT NULL DEFAULT false,
    image_url        text,
    thumbnail_url    text,
    width            integer,
    height           integer,
    size_bytes       bigint,
    duration_ms      integer,
    expires_at       timestamptz,
    requested_at     timestamptz,
    ready_at         timestamptz,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX snapshots_tenant_created ON snapshots (tenant_id, created_at DESC, snapshot_id DESC);
CREATE INDEX snapshots_created ON snapshots (created_at DESC, snapshot_id DESC);

-- Tenants: a row may exist before identity.tenant.created.v1 arrives (slug NULL);
-- such a tenant is not listed but its suspension already stops webhook deliveries.
CREATE TABLE tenants (
    tenant_id         uuid PRIMARY KEY,
    slug              text,
    kind              text,
    name              text,
    contact_email     text,
    suspended         boolean NOT NULL DEFAULT false,
    suspended_at      timestamptz,
    suspension_reason text,
    created_at        timestamptz,
    updated_at        timestamptz NOT NULL
);
CREATE INDEX tenants_slug ON tenants (slug, tenant_id) WHERE slug IS NOT NULL;

CREATE TABLE users (
    user_id        uuid PRIMARY KEY,
    tenant_id      uuid NOT NULL,
    register_mode  text,
    email          text,
    verified_email text,
    email_verified boolean NOT NULL DEFAULT false,
    verified_at    timestamptz,
    phone_number   text,
    full_name      text,
    banned_at      timestamptz,
    banned_by      uuid,
    ban_reason     text,
    unblock_date   timestamptz,
    registered_at  timestamptz,
    updated_at     timestamptz NOT NULL
);

-- Plans of users; the user's plan is the one activated last (by event_time).
CREATE TABLE user_plans (
    user_plan_id     uuid PRIMARY KEY,
    user_id          uuid NOT NULL,
    tenant_id        uuid NOT NULL,
    plan_code        text,
    plan_id          uuid,
    plan_name        text,
    expires_at       timestamptz,
    seconds_charge   integer,
    storage_gb       integer,
    parallel_renders integer,
    payment_id       uuid,
    activated_at     timestamptz,
    expired_at       timestamptz,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX user_plans_user ON user_plans (user_id);

CREATE TABLE api_keys (
    api_key_id         uuid PRIMARY KEY,
    tenant_id          uuid NOT NULL,
    name               text,
    environment        text,
    key_prefix         text,
    last4              text,
    scopes             text[] NOT NULL DEFAULT '{}',
    created_by_user_id uuid,
    created_at         timestamptz,
    revoked_at         timestamptz,
    revoked_by_user_id uuid,
    revoke_reason      text
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at DESC, api_key_id DESC);

-- identity.payment.refunded.v1 events, matched to refunds due at read time.
CREATE TABLE payment_refunds (
    event_id            uuid PRIMARY KEY,
    tenant_id           uuid NOT NULL,
    payment_id          uuid NOT NULL,
    correlation_id      uuid,
    refund_amount_minor bigint NOT NULL,
    refunded_at         timestamptz NOT NULL
);
CREATE INDEX payment_refunds_payment ON payment_refunds (tenant_id, payment_id, refunded_at);
CREATE INDEX payment_refunds_correlation ON payment_refunds (tenant_id, correlation_id, refunded_at)
    WHERE correlation_id IS NOT NULL;

-- Usage of a tenant per UTC day ('day') and month ('month'); period_start is the
-- first day of the period.
CREATE TABLE usage_periods (
    tenant_id              uuid NOT NULL,
    period                 text NOT NULL CHECK (period IN ('day', 'month')),
    period_start           date NOT NULL,
    jobs_completed         bigint NOT NULL DEFAULT 0,
    jobs_failed            bigint NOT NULL DEFAULT 0,
    jobs_cancelled         bigint NOT NULL DEFAULT 0,
    render_compute_seconds bigint NOT NULL DEFAULT 0,
    output_seconds         double precision NOT NULL DEFAULT 0,
    output_bytes           bigint NOT NULL DEFAULT 0,
    paid_minor_by_price    jsonb NOT NULL DEFAULT '{}',
    payments_succeeded     bigint NOT NULL DEFAULT 0,
    payments_succeeded_minor bigint NOT NULL DEFAULT 0,
    payments_failed        bigint NOT NULL DEFAULT 0,
    payments_failed_minor  bigint NOT NULL DEFAULT 0,
    payments_refunded      bigint NOT NULL DEFAULT 0,
    payments_refunded_minor bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (period, period_start, tenant_id)
);

CREATE TABLE webhook_endpoints (
    id                         uuid PRIMARY KEY,
    tenant_id                  uuid NOT NULL,
    url                        text NOT NULL,
    event_types                text[] NOT NULL,
    description                text NOT NULL DEFAULT '',
    enabled                    boolean NOT NULL DEFAULT true,
    disabled_reason            text,
    secret                     bytea NOT NULL,
    previous_secret            bytea,
    previous_secret_expires_at timestamptz,
    secret_rotated_at          timestamptz,
    consecutive_failures       integer NOT NULL DEFAULT 0,
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL,
    deleted_at                 timestamptz
);
CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY,
    endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id),
    tenant_id       uuid NOT NULL,
    event_id        uuid NOT NULL,
    event_type      text NOT NULL,
    body            bytea NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'retrying', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    response_code   integer,
    latency_ms      integer,
    last_error      text,
    next_attempt_at timestamptz,
    last_attempt_at timestamptz,
    replay_of       uuid REFERENCES webhook_deliveries (id),
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
-- An event reaches an endpoint once, replays aside.
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (endpoint_id, event_id) WHERE replay_of IS NULL;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
DROP TABLE usage_periods;
DROP TABLE payment_refunds;
DROP TABLE api_keys;
DROP TABLE user_plans;
DROP TABLE users;
DROP TABLE tenants;
DROP TABLE snapshots;
DROP TABLE render_job_events;
DROP TABLE render_jobs;
