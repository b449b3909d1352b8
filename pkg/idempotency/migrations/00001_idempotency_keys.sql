-- +goose Up
-- The answers of requests sent with an Idempotency-Key, per caller (scope) and key. A row
-- without a status is a request in flight; expires_at ends its claim (a crashed instance
-- never holds a key for long), and once answered it ends the key's life (IDEMPOTENCY_TTL).
CREATE TABLE idempotency_keys (
    scope       TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint BYTEA,
    status      INTEGER,
    headers     JSONB,
    body        BYTEA,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
