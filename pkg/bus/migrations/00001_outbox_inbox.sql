-- +goose Up
-- The outbox in watermill-sql's PostgreSQL queue schema (topic "outbox"); rows are
-- deleted once the forwarder has delivered them.
CREATE TABLE watermill_outbox (
    "offset"   BIGSERIAL PRIMARY KEY,
    "uuid"     VARCHAR(36) NOT NULL,
    "payload"  JSON DEFAULT NULL,
    "metadata" JSON DEFAULT NULL,
    "acked"    BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Events a consumer has applied, recorded in the same transaction as their effect.
CREATE TABLE bus_inbox (
    consumer   TEXT NOT NULL,
    event_id   UUID NOT NULL,
    handled_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
CREATE INDEX bus_inbox_handled_at ON bus_inbox (handled_at);

-- +goose Down
DROP TABLE bus_inbox;
DROP TABLE watermill_outbox;
