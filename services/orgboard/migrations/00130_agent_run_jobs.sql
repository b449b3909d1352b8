-- +goose Up
-- An execute that asks to be answered at once leaves the run executing while a job on the bus
-- calls the model. job_claim names the one job attempt that holds the run (claimed_at is the
-- start of its lease, renewed while it works); attempts counts the model calls the jobs made;
-- failure_reason says why a failed run failed.
ALTER TABLE agent_runs DROP CONSTRAINT agent_runs_status_check;
ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_status_check
    CHECK (status IN ('prepared', 'executing', 'drafted', 'approved', 'failed'));
ALTER TABLE agent_runs
    ADD COLUMN job_claim uuid,
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN failure_reason text;

-- +goose Down
UPDATE agent_runs SET status = 'prepared', claimed_at = NULL WHERE status = 'executing';
ALTER TABLE agent_runs DROP COLUMN failure_reason, DROP COLUMN attempts, DROP COLUMN job_claim;
ALTER TABLE agent_runs DROP CONSTRAINT agent_runs_status_check;
ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_status_check
    CHECK (status IN ('prepared', 'drafted', 'approved', 'failed'));
