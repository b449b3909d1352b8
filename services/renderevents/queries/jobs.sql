-- name: LockJobs :many
-- Locks the stored jobs of a batch, in one order for every transaction. A job not stored yet
-- is inserted by InsertJobs at the end of the batch: until then its id is free, and a
-- concurrent transaction inserting the same job waits on the first one's insert.
SELECT * FROM render_jobs WHERE job_id = ANY(@job_ids::uuid[]) ORDER BY job_id FOR UPDATE;

-- name: InsertJobs :copyfrom
-- Stores jobs whose first event the transaction applied (no row yet), columns in SaveJob's
-- order. A job another transaction stored meanwhile fails the copy (unique violation): the
-- batch is applied again and finds it.
INSERT INTO render_jobs (tenant_id, user_id, state, state_rank, step, progress, saved_project_id,
    original_project_id, priority_queue, priority_score, price_type, paid_price_minor, payment_id,
    region, resolution, duration_sec, node_ids, node_ids_src, current_frame, total_frames,
    eta_seconds, refund_required, cancelled_by_user_id, export_id, output_url, output_duration_sec,
    output_size_bytes, thumbnail_url, width, height, render_compute_seconds, failed_at_step,
    cancelled_at_step, error_message, error_code, retry_count, terminal_event_id, progress_at,
    created_at, queued_at, started_at, finished_at, updated_at, job_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
    $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39,
    $40, $41, $42, $43, $44);

-- name: SaveJob :batchexec
UPDATE render_jobs SET
    tenant_id = @tenant_id,
    user_id = @user_id,
    state = @state,
    state_rank = @state_rank,
    step = @step,
    progress = @progress,
    saved_project_id = @saved_project_id,
    original_project_id = @original_project_id,
    priority_queue = @priority_queue,
    priority_score = @priority_score,
    price_type = @price_type,
    paid_price_minor = @paid_price_minor,
    payment_id = @payment_id,
    region = @region,
    resolution = @resolution,
    duration_sec = @duration_sec,
    node_ids = @node_ids,
    node_ids_src = @node_ids_src,
    current_frame = @current_frame,
    total_frames = @total_frames,
    eta_seconds = @eta_seconds,
    refund_required = @refund_required,
    cancelled_by_user_id = @cancelled_by_user_id,
    export_id = @export_id,
    output_url = @output_url,
    output_duration_sec = @output_duration_sec,
    output_size_bytes = @output_size_bytes,
    thumbnail_url = @thumbnail_url,
    width = @width,
    height = @height,
    render_compute_seconds = @render_compute_seconds,
    failed_at_step = @failed_at_step,
    cancelled_at_step = @cancelled_at_step,
    error_message = @error_message,
    error_code = @error_code,
    retry_count = @retry_count,
    terminal_event_id = @terminal_event_id,
    progress_at = @progress_at,
    created_at = @created_at,
    queued_at = @queued_at,
    started_at = @started_at,
    finished_at = @finished_at,
    updated_at = @updated_at
WHERE job_id = @job_id;

-- name: SaveJobProgress :batchone
-- Persists the latest progress tick of a job unless the job is terminal or a newer tick
-- is already stored; known tells whether the job exists (a tick may overtake the job's
-- first event: the writer keeps it for a while).
WITH cur AS (
    SELECT rj.state_rank FROM render_jobs rj WHERE rj.job_id = @job_id
), upd AS (
    UPDATE render_jobs SET
        step = @step,
        progress = @progress,
        current_frame = @current_frame,
        total_frames = COALESCE(@total_frames, total_frames),
        eta_seconds = @eta_seconds,
        progress_at = @progress_at,
        updated_at = GREATEST(updated_at, @progress_at)
    WHERE render_jobs.job_id = @job_id
      AND render_jobs.state_rank BETWEEN 1 AND 2
      AND (render_jobs.progress_at IS NULL OR render_jobs.progress_at <= @progress_at)
    RETURNING render_jobs.job_id
)
SELECT (SELECT count(*) FROM upd)::int AS updated,
       COALESCE((SELECT state_rank FROM cur), 0)::smallint AS state_rank;

-- name: GetJob :one
SELECT * FROM render_jobs WHERE job_id = $1 AND state_rank > 0;

-- name: ListJobs :many
SELECT * FROM render_jobs
WHERE state_rank > 0
  AND (sqlc.narg(tenant_id)::uuid IS NULL OR tenant_id = sqlc.narg(tenant_id))
  AND (sqlc.narg(user_id)::uuid IS NULL OR user_id = sqlc.narg(user_id))
  AND (sqlc.narg(state)::text IS NULL OR state = sqlc.narg(state))
  AND (sqlc.narg(saved_project_id)::uuid IS NULL OR saved_project_id = sqlc.narg(saved_project_id))
  AND (sqlc.narg(from_time)::timestamptz IS NULL OR created_at >= sqlc.narg(from_time))
  AND (sqlc.narg(to_time)::timestamptz IS NULL OR created_at < sqlc.narg(to_time))
  AND (sqlc.narg(after_time)::timestamptz IS NULL
       OR (created_at, job_id) < (sqlc.narg(after_time)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, job_id DESC
LIMIT @max_rows;

-- name: InsertTimeline :copyfrom
INSERT INTO render_job_events (job_id, event_id, event_type, event_time, applied, data)
VALUES ($1, $2, $3, $4, $5, $6);

-- name: ListTimeline :many
SELECT * FROM render_job_events WHERE job_id = $1 ORDER BY event_time, event_id;
