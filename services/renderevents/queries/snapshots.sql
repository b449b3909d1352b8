-- name: UpsertSnapshotRequested :exec
-- The requested event owns saved_project_id, scene_key, frame_number and cached.
INSERT INTO snapshots (snapshot_id, tenant_id, user_id, saved_project_id, scene_key, frame_number,
                       cached, requested_at, created_at, updated_at)
VALUES (@snapshot_id, @tenant_id, @user_id, @saved_project_id, @scene_key, @frame_number,
        @cached, @event_time, @event_time, @event_time)
ON CONFLICT (snapshot_id) DO UPDATE SET
    user_id = COALESCE(snapshots.user_id, excluded.user_id),
    saved_project_id = excluded.saved_project_id,
    scene_key = excluded.scene_key,
    frame_number = excluded.frame_number,
    cached = excluded.cached,
    requested_at = LEAST(snapshots.requested_at, excluded.requested_at),
    created_at = LEAST(snapshots.created_at, excluded.created_at),
    updated_at = GREATEST(snapshots.updated_at, excluded.updated_at);

-- name: UpsertSnapshotReady :exec
-- The latest ready event owns the image; it fills what the requested event did not tell.
INSERT INTO snapshots (snapshot_id, tenant_id, user_id, saved_project_id, scene_key, frame_number,
                       image_url, thumbnail_url, width, height, size_bytes, duration_ms, expires_at,
                       ready_at, created_at, updated_at)
VALUES (@snapshot_id, @tenant_id, @user_id, @saved_project_id, @scene_key, @frame_number,
        @image_url, @thumbnail_url, @width, @height, @size_bytes, @duration_ms, @expires_at,
        @event_time, @event_time, @event_time)
ON CONFLICT (snapshot_id) DO UPDATE SET
    user_id = COALESCE(snapshots.user_id, excluded.user_id),
    saved_project_id = COALESCE(snapshots.saved_project_id, excluded.saved_project_id),
    scene_key = COALESCE(snapshots.scene_key, excluded.scene_key),
    frame_number = COALESCE(snapshots.frame_number, excluded.frame_number),
    image_url = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.image_url ELSE snapshots.image_url END,
    thumbnail_url = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.thumbnail_url ELSE snapshots.thumbnail_url END,
    width = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.width ELSE snapshots.width END,
    height = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.height ELSE snapshots.height END,
    size_bytes = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.size_bytes ELSE snapshots.size_bytes END,
    duration_ms = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.duration_ms ELSE snapshots.duration_ms END,
    expires_at = CASE WHEN snapshots.ready_at IS NULL OR excluded.ready_at >= snapshots.ready_at THEN excluded.expires_at ELSE snapshots.expires_at END,
    ready_at = GREATEST(snapshots.ready_at, excluded.ready_at),
    created_at = LEAST(snapshots.created_at, excluded.created_at),
    updated_at = GREATEST(snapshots.updated_at, excluded.updated_at);

-- name: GetSnapshot :one
SELECT * FROM snapshots WHERE snapshot_id = $1;

-- name: ListSnapshots :many
-- state: requested (no ready yet), ready (ready, not expired at @now), expired.
SELECT * FROM snapshots
WHERE (sqlc.narg(tenant_id)::uuid IS NULL OR tenant_id = sqlc.narg(tenant_id))
  AND (sqlc.narg(saved_project_id)::uuid IS NULL OR saved_project_id = sqlc.narg(saved_project_id))
  AND (sqlc.narg(state)::text IS NULL
       OR (sqlc.narg(state)::text = 'requested' AND ready_at IS NULL)
       OR (sqlc.narg(state)::text = 'ready' AND ready_at IS NOT NULL AND (expires_at IS NULL OR expires_at > @now::timestamptz))
       OR (sqlc.narg(state)::text = 'expired' AND ready_at IS NOT NULL AND expires_at <= @now::timestamptz))
  AND (sqlc.narg(after_time)::timestamptz IS NULL
       OR (created_at, snapshot_id) < (sqlc.narg(after_time)::timestamptz, sqlc.narg(after_id)::uuid))
ORDER BY created_at DESC, snapshot_id DESC
LIMIT @max_rows;
