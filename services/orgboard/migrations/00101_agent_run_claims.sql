-- +goose Up
-- claimed_at is set while one execute of a prepared run calls the model; other executes see
-- the claim and answer 409. A claim older than the service's lease (a process that stopped
-- mid-call) may be taken over.
ALTER TABLE agent_runs ADD COLUMN claimed_at timestamptz;

-- +goose Down
ALTER TABLE agent_runs DROP COLUMN claimed_at;
