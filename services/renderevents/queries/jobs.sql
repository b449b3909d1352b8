-- name: LockJobs :many
-- Locks the stored jobs of a batch, in one order for every transaction. A job not stored yet
-- is inserted by WriteJobs at the end of the batch: until then its id is free, and a
-- concurrent transaction inserting the same job waits on the first one's insert.
SELECT * FROM render_jobs WHERE job_id = ANY(@job_ids::uuid[]) ORDER BY job_id FOR UPDATE;

-- name: WriteJobs :exec
-- Writes a batch's jobs in one statement: the stored ones (LockJobs locked their rows) are
-- updated, the others inserted. A job another transaction inserted meanwhile fails the insert
-- (unique violation): the batch is applied again and finds it. Element i of every array is
-- job i's (the unnests of one SELECT list advance together). Arrays cannot say which elements
-- are NULL here: bit k of nulls is set when the k-th nullable column, in the order of the
-- columns, is NULL. node_ids is an array literal (an array of arrays would be one
-- two-dimensional array).
WITH v AS (
    SELECT
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
        unnest(@nulls::bigint[]) AS nulls,
        unnest(@stored::boolean[]) AS stored
), r AS (
    SELECT stored,
        job_id,
        tenant_id,
        CASE WHEN nulls & 1 = 0 THEN user_id END AS user_id,
        state,
        state_rank,
        CASE WHEN nulls & 2 = 0 THEN step END AS step,
        progress,
        CASE WHEN nulls & 4 = 0 THEN saved_project_id END AS saved_project_id,
        CASE WHEN nulls & 8 = 0 THEN original_project_id END AS original_project_id,
        CASE WHEN nulls & 16 = 0 THEN priority_queue END AS priority_queue,
        CASE WHEN nulls & 32 = 0 THEN priority_score END AS priority_score,
        CASE WHEN nulls & 64 = 0 THEN price_type END AS price_type,
        CASE WHEN nulls & 128 = 0 THEN paid_price_minor END AS paid_price_minor,
        CASE WHEN nulls & 256 = 0 THEN payment_id END AS payment_id,
        CASE WHEN nulls & 512 = 0 THEN region END AS region,
        CASE WHEN nulls & 1024 = 0 THEN resolution END AS resolution,
        CASE WHEN nulls & 2048 = 0 THEN duration_sec END AS duration_sec,
        node_ids::uuid[] AS node_ids,
        node_ids_src,
        CASE WHEN nulls & 4096 = 0 THEN current_frame END AS current_frame,
        CASE WHEN nulls & 8192 = 0 THEN total_frames END AS total_frames,
        CASE WHEN nulls & 16384 = 0 THEN eta_seconds END AS eta_seconds,
        CASE WHEN nulls & 32768 = 0 THEN refund_required END AS refund_required,
        CASE WHEN nulls & 65536 = 0 THEN cancelled_by_user_id END AS cancelled_by_user_id,
        CASE WHEN nulls & 131072 = 0 THEN export_id END AS export_id,
        CASE WHEN nulls & 262144 = 0 THEN output_url END AS output_url,
        CASE WHEN nulls & 524288 = 0 THEN output_duration_sec END AS output_duration_sec,
        CASE WHEN nulls & 1048576 = 0 THEN output_size_bytes END AS output_size_bytes,
        CASE WHEN nulls & 2097152 = 0 THEN thumbnail_url END AS thumbnail_url,
        CASE WHEN nulls & 4194304 = 0 THEN width END AS width,
        CASE WHEN nulls & 8388608 = 0 THEN height END AS height,
        CASE WHEN nulls & 16777216 = 0 THEN render_compute_seconds END AS render_compute_seconds,
        CASE WHEN nulls & 33554432 = 0 THEN failed_at_step END AS failed_at_step,
        CASE WHEN nulls & 67108864 = 0 THEN cancelled_at_step END AS cancelled_at_step,
        CASE WHEN nulls & 134217728 = 0 THEN error_message END AS error_message,
        CASE WHEN nulls & 268435456 = 0 THEN error_code END AS error_code,
        CASE WHEN nulls & 536870912 = 0 THEN retry_count END AS retry_count,
        CASE WHEN nulls & 1073741824 = 0 THEN terminal_event_id END AS terminal_event_id,
        CASE WHEN nulls & 2147483648 = 0 THEN progress_at END AS progress_at,
        created_at,
        CASE WHEN nulls & 4294967296 = 0 THEN queued_at END AS queued_at,
        CASE WHEN nulls & 8589934592 = 0 THEN started_at END AS started_at,
        CASE WHEN nulls & 17179869184 = 0 THEN finished_at END AS finished_at,
        updated_at
    FROM v
), updated AS (
    UPDATE render_jobs AS j SET
        tenant_id = r.tenant_id,
        user_id = r.user_id,
        state = r.state,
        state_rank = r.state_rank,
        step = r.step,
        progress = r.progress,
        saved_project_id = r.saved_project_id,
        original_project_id = r.original_project_id,
        priority_queue = r.priority_queue,
        priority_score = r.priority_score,
        price_type = r.price_type,
        paid_price_minor = r.paid_price_minor,
        payment_id = r.payment_id,
        region = r.region,
        resolution = r.resolution,
        duration_sec = r.duration_sec,
        node_ids = r.node_ids,
        node_ids_src = r.node_ids_src,
        current_frame = r.current_frame,
        total_frames = r.total_frames,
        eta_seconds = r.eta_seconds,
        refund_required = r.refund_required,
        cancelled_by_user_id = r.cancelled_by_user_id,
        export_id = r.export_id,
        output_url = r.output_url,
        output_duration_sec = r.output_duration_sec,
        output_size_bytes = r.output_size_bytes,
        thumbnail_url = r.thumbnail_url,
        width = r.width,
        height = r.height,
        render_compute_seconds = r.render_compute_seconds,
        failed_at_step = r.failed_at_step,
        cancelled_at_step = r.cancelled_at_step,
        error_message = r.error_message,
        error_code = r.error_code,
        retry_count = r.retry_count,
        terminal_event_id = r.terminal_event_id,
        progress_at = r.progress_at,
        created_at = r.created_at,
        queued_at = r.queued_at,
        started_at = r.started_at,
        finished_at = r.finished_at,
        updated_at = r.updated_at
    FROM r
    WHERE r.stored AND j.job_id = r.job_id
)
INSERT INTO render_jobs (
    job_id, tenant_id, user_id, state, state_rank, step, progress, saved_project_id,
    original_project_id, priority_queue, priority_score, price_type, paid_price_minor, payment_id,
    region, resolution, duration_sec, node_ids, node_ids_src, current_frame, total_frames,
    eta_seconds, refund_required, cancelled_by_user_id, export_id, output_url, output_duration_sec,
    output_size_bytes, thumbnail_url, width, height, render_compute_seconds, failed_at_step,
    cancelled_at_step, error_message, error_code, retry_count, terminal_event_id, progress_at,
    created_at, queued_at, started_at, finished_at, updated_at
)
SELECT
    job_id, tenant_id, user_id, state, state_rank, step, progress, saved_project_id,
    original_project_id, priority_queue, priority_score, price_type, paid_price_minor, payment_id,
    region, resolution, duration_sec, node_ids, node_ids_src, current_frame, total_frames,
    eta_seconds, refund_required, cancelled_by_user_id, export_id, output_url, output_duration_sec,
    output_size_bytes, thumbnail_url, width, height, render_compute_seconds, failed_at_step,
    cancelled_at_step, error_message, error_code, retry_count, terminal_event_id, progress_at,
    created_at, queued_at, started_at, finished_at, updated_at
FROM r
WHERE NOT r.stored;

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

-- name: InsertTimeline :exec
-- Appends a batch's timeline entries, element i of every array being entry i's.
INSERT INTO render_job_events (job_id, event_id, event_type, event_time, applied, data)
SELECT unnest(@job_id::uuid[]), unnest(@event_id::uuid[]), unnest(@event_type::text[]),
       unnest(@event_time::timestamptz[]), unnest(@applied::boolean[]), unnest(@data::jsonb[]);

-- name: ListTimeline :many
SELECT * FROM render_job_events WHERE job_id = $1 ORDER BY event_time, event_id;
