-- +goose Up

-- A delivery waiting for an attempt has a row here: when its attempt is due and the lease of
-- the dispatcher attempting it. Claims walk this table's index and lease here, and the outcome
-- of an attempt deletes the row (or moves its time, for a retry), so that recording an outcome
-- changes no indexed column of webhook_deliveries: the update stays on the row's page without
-- new index entries (HOT), where taking a delivery out of a partial index over its status
-- added an entry to each of that table's indexes.
CREATE TABLE webhook_deliveries_due (
    id              uuid PRIMARY KEY REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    next_attempt_at timestamptz NOT NULL,
    leased_until    timestamptz
) WITH (fillfactor = 50);
CREATE INDEX webhook_deliveries_due_in_claim_order ON webhook_deliveries_due (next_attempt_at, id);
INSERT INTO webhook_deliveries_due (id, next_attempt_at, leased_until)
SELECT id, COALESCE(next_attempt_at, updated_at), leased_until FROM webhook_deliveries
WHERE status IN ('pending', 'retrying');
-- No index of webhook_deliveries holds status or next_attempt_at: a record changes both, and an
-- update that changes a column an index holds (or its predicate reads) cannot stay on the
-- row's page. The column
-- leased_until stays, unused here, so that instances of the previous release still read
-- deliveries during a rolling update; their dispatchers claim without an index until they are
-- replaced, and a delivery may then be sent twice (receivers deduplicate on webhook-id).
DROP INDEX webhook_deliveries_due_in_order;

-- Every new delivery waiting for an attempt is queued by the statement that inserts it,
-- whichever writes it: ingestion's COPY, a replay, or an instance still running the previous
-- release during a rolling update, which knows nothing of this table.
-- +goose StatementBegin
CREATE FUNCTION webhook_deliveries_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_deliveries_due (id, next_attempt_at)
    SELECT id, next_attempt_at FROM new_deliveries
    WHERE status IN ('pending', 'retrying') AND next_attempt_at IS NOT NULL;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER webhook_deliveries_queue AFTER INSERT ON webhook_deliveries
    REFERENCING NEW TABLE AS new_deliveries FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_queue();

-- +goose Down
DROP TRIGGER webhook_deliveries_queue ON webhook_deliveries;
DROP FUNCTION webhook_deliveries_queue();
UPDATE webhook_deliveries d SET leased_until = q.leased_until
FROM webhook_deliveries_due q WHERE q.id = d.id AND q.leased_until IS NOT NULL;
CREATE INDEX webhook_deliveries_due_in_order ON webhook_deliveries (next_attempt_at, id)
    WHERE status IN ('pending', 'retrying');
DROP TABLE webhook_deliveries_due;
