-- +goose Up

-- A claim leases a delivery in leased_until, a column no index holds, so that the claim's update
-- can stay on the row's page without a new entry in each of the table's four indexes (a HOT
-- update); half of each page is left free for it. next_attempt_at keeps the time the attempt is
-- due; a delivery is due when that time has come and no lease holds it.
ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;
ALTER TABLE webhook_deliveries SET (fillfactor = 50);

-- +goose Down
ALTER TABLE webhook_deliveries RESET (fillfactor);
ALTER TABLE webhook_deliveries DROP COLUMN leased_until;
