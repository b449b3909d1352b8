-- +goose Up

-- Claims take due deliveries oldest first, in (next_attempt_at, id) order. The index on
-- next_attempt_at alone made each claim read and sort every delivery due at the same instant
-- (an ingest batch queues hundreds with one next_attempt_at) to lock the first few; in that
-- order the claim reads only the rows it locks.
CREATE INDEX webhook_deliveries_due_in_order ON webhook_deliveries (next_attempt_at, id)
    WHERE status IN ('pending', 'retrying');
DROP INDEX webhook_deliveries_due;

-- +goose Down
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'retrying');
DROP INDEX webhook_deliveries_due_in_order;
