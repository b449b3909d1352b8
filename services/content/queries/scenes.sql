-- Scenes and their order.

-- name: GetScene :one
-- The scene with what decides its visibility (its project's and container's state).
SELECT sqlc.embed(s), p.is_published AS project_published, c.is_published AS container_published,
       (c.deleted_at IS NOT NULL)::boolean AS container_deleted
FROM scenes s
JOIN projects p ON p.id = s.project_id
JOIN containers c ON c.id = p.container_id
WHERE s.id = $1;

-- name: GetSceneForUpdate :one
SELECT * FROM scenes WHERE id = $1 FOR UPDATE;

-- name: NextSceneSort :one
SELECT (coalesce(max(sort), 0) + 1)::integer AS next FROM scenes WHERE project_id = $1;

-- name: InsertScene :exec
INSERT INTO scenes (id, project_id, key, title, scene_type, image, demo, snapshot_url,
                    localized_title, default_duration_sec, min_duration_sec, max_duration_sec,
                    overlap_at_end_sec, manual_color_selection, sort, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16);

-- name: UpdateScene :exec
UPDATE scenes
SET title = $2, default_duration_sec = $3, sort = $4, manual_color_selection = $5
WHERE id = $1;

-- name: DeleteScene :execrows
DELETE FROM scenes WHERE id = $1;

-- name: LockProjectSceneIDs :many
SELECT id FROM scenes WHERE project_id = $1 ORDER BY id FOR UPDATE;

-- name: SetSceneOrder :exec
-- Scene n of ordered_ids gets sort n, in one statement.
UPDATE scenes s SET sort = o.ord::integer
FROM unnest(@ordered_ids::uuid[]) WITH ORDINALITY AS o(id, ord)
WHERE s.id = o.id AND s.project_id = @project_id;

-- name: ExistingSceneIDsOfProject :many
SELECT id FROM scenes WHERE project_id = @project_id AND id = ANY(@ids::uuid[]);
