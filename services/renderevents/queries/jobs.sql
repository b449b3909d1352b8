-- name: LockJobs :many
-- Locks the stored jobs of a batch, in one order for every transaction. A job not stored yet
-- is inserted by InsertJobs at the end of the batch: until then its id is free, and a
-- concurrent transaction inserting the same job waits on the first one's insert.
SELECT * FROM render_jobs WHERE job_id = ANY(@job_ids::uuid[]) ORDER BY job_id FOR UPDATE;

-- name: InsertJobs :copyfrom
-- Stores jobs whose first event the transaction applied (no row yet). A job another
-- transaction stored meanwhile fails the copy (unique violation): the batch is applied again
-- and finds it.
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

-- name: SaveJobs :exec
-- Updates a batch's stored jobs (LockJobs locked their rows) in one statement: element i of
-- every array is job i's (the unnests of one SELECT list advance together). Arrays cannot
-- say which elements are NULL here: bit k of nulls is set when the k-th nullable column,
-- in the order of SET, is NULL. node_ids is an array literal (an array of arrays would be one
-- two-dimensional array).
UPDATE render_jobs AS j SET
    tenant_id = v.tenant_id,
    user_id = CASE WHEN v.nulls & 1 = 0 THEN v.user_id END,
    state = v.state,
    state_rank = v.state_rank,
    step = CASE WHEN v.nulls & 2 = 0 THEN v.step END,
    progress = v.progress,
    saved_project_id = CASE WHEN v.nulls & 4 = 0 THEN v.saved_project_id END,
    original_project_id = CASE WHEN v.nulls & 8 = 0 THEN v.original_project_id END,
    priority_queue = CASE WHEN v.nulls & 16 = 0 THEN v.priority_queue END,
    priority_score = CASE WHEN v.nulls & 32 = 0 THEN v.priority_score END,
    price_type = CASE WHEN v.nulls & 64 = 0 THEN v.price_type END,
    paid_price_minor = CASE WHEN v.nulls & 128 = 0 THEN v.paid_price_minor END,
    payment_id = CASE WHEN v.nulls & 256 = 0 THEN v.payment_id END,
    region = CASE WHEN v.nulls & 512 = 0 THEN v.region END,
    resolution = CASE WHEN v.nulls & 1024 = 0 THEN v.resolution END,
    duration_sec = CASE WHEN v.nulls & 2048 = 0 THEN v.duration_sec END,
    node_ids = v.node_ids::uuid[],
    node_ids_src = v.node_ids_src,
    current_frame = CASE WHEN v.nulls & 4096 = 0 THEN v.current_frame END,
    total_frames = CASE WHEN v.nulls & 8192 = 0 THEN v.total_frames END,
    eta_seconds = CASE WHEN v.nulls & 16384 = 0 THEN v.eta_seconds END,
    refund_required = CASE WHEN v.nulls & 32768 = 0 THEN v.refund_required END,
    cancelled_by_user_id = CASE WHEN v.nulls & 65536 = 0 THEN v.cancelled_by_user_id END,
    export_id = CASE WHEN v.nulls & 131072 = 0 THEN v.export_id END,
    output_url = CASE WHEN v.nulls & 262144 = 0 THEN v.output_url END,
    output_duration_sec = CASE WHEN v.nulls & 524288 = 0 THEN v.output_duration_sec END,
    output_size_bytes = CASE WHEN v.nulls & 1048576 = 0 THEN v.output_size_bytes END,
    thumbnail_url = CASE WHEN v.nulls & 2097152 = 0 THEN v.thumbnail_url END,
    width = CASE WHEN v.nulls & 4194304 = 0 THEN v.width END,
    height = CASE WHEN v.nulls & 8388608 = 0 THEN v.height END,
    render_compute_seconds = CASE WHEN v.nulls & 16777216 = 0 THEN v.render_compute_seconds END,
    failed_at_step = CASE WHEN v.nulls & 33554432 = 0 THEN v.failed_at_step END,
    cancelled_at_step = CASE WHEN v.nulls & 67108864 = 0 THEN v.cancelled_at_step END,
    error_message = CASE WHEN v.nulls & 134217728 = 0 THEN v.error_message END,
    error_code = CASE WHEN v.nulls & 268435456 = 0 THEN v.error_code END,
    retry_count = CASE WHEN v.nulls & 536870912 = 0 THEN v.retry_count END,
    terminal_event_id = CASE WHEN v.nulls & 1073741824 = 0 THEN v.terminal_event_id END,
    progress_at = CASE WHEN v.nulls & 2147483648 = 0 THEN v.progress_at END,
    created_at = v.created_at,
    queued_at = CASE WHEN v.nulls & 4294967296 = 0 THEN v.queued_at END,
    started_at = CASE WHEN v.nulls & 8589934592 = 0 THEN v.started_at END,
    finished_at = CASE WHEN v.nulls & 17179869184 = 0 THEN v.finished_at END,
    updated_at = v.updated_at
FROM (SELECT
    unnest(@job_id::uuid[]) AS job_id,
    unnest(@tenant_id::uuid[]) AS tenant_id,
    unnest(@user_id::uuid[]) AS user_id,
    unnest(@state::text[]) AS state,
    unnest(@state_rank::smallint[]) AS state_rank,
    unnest(@step::text[]) AS step,
    unnest(@progress::integer[]) AS progress,
    unnest(@saved_project_id::uuid[]) AS saved_project_id,
    unnest(@original_project_id::uuid[]) AS original_project_id,
    unnest(@priority_queue::text[]) AS priority_queue,
    unnest(@priority_score::integer[]) AS priority_score,
    unnest(@price_type::text[]) AS price_type,
    unnest(@paid_price_minor::bigint[]) AS paid_price_minor,
    unnest(@payment_id::uuid[]) AS payment_id,
    unnest(@region::text[]) AS region,
    unnest(@resolution::text[]) AS resolution,
    unnest(@duration_sec::float8[]) AS duration_sec,
    unnest(@node_ids::text[]) AS node_ids,
    unnest(@node_ids_src::smallint[]) AS node_ids_src,
    unnest(@current_frame::integer[]) AS current_frame,
    unnest(@total_frames::integer[]) AS total_frames,
    unnest(@eta_seconds::integer[]) AS eta_seconds,
    unnest(@refund_required::boolean[]) AS refund_required,
    unnest(@cancelled_by_user_id::uuid[]) AS cancelled_by_user_id,
    unnest(@export_id::uuid[]) AS export_id,
    unnest(@output_url::text[]) AS output_url,
    unnest(@output_duration_sec::float8[]) AS output_duration_sec,
    unnest(@output_size_bytes::bigint[]) AS output_size_bytes,
    unnest(@thumbnail_url::text[]) AS thumbnail_url,
    unnest(@width::integer[]) AS width,
    unnest(@height::integer[]) AS height,
    unnest(@render_compute_seconds::integer[]) AS render_compute_seconds,
    unnest(@failed_at_step::text[]) AS failed_at_step,
    unnest(@cancelled_at_step::text[]) AS cancelled_at_step,
    unnest(@error_message::text[]) AS error_message,
    unnest(@error_code::text[]) AS error_code,
    unnest(@retry_count::integer[]) AS retry_count,
    unnest(@terminal_event_id::uuid[]) AS terminal_event_id,
    unnest(@progress_at::timestamptz[]) AS progress_at,
    unnest(@created_at::timestamptz[]) AS created_at,
    unnest(@queued_at::timestamptz[]) AS queued_at,
    unnest(@started_at::timestamptz[]) AS started_at,
    unnest(@finished_at::timestamptz[]) AS finished_at,
    unnest(@updated_at::timestamptz[]) AS updated_at,
    unnest(@nulls::bigint[]) AS nulls
) AS v
WHERE j.job_id = v.job_id;

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
