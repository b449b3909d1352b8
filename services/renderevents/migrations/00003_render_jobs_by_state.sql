-- +goose Up

-- A tenant's jobs in one state, newest first (GET /v1/render-jobs?state=...): without it the
-- list walks the tenant's jobs until it has found a page of that state, so a rare state costs
-- as many rows as the tenant has. Job updates that change the state are not HOT already
-- (render_jobs_refunds depends on it), so this index adds one entry to each of them.
CREATE INDEX render_jobs_tenant_state_created ON render_jobs (tenant_id, state, created_at DESC, job_id DESC);

-- +goose Down
DROP INDEX render_jobs_tenant_state_created;
