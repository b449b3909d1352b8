-- SVG colour previews and the colour elements they look for.

-- name: ColorKeysOfScene :many
SELECT element_key, default_color FROM scene_colors WHERE scene_id = $1 ORDER BY sort, id;

-- name: ColorKeysOfProject :many
SELECT element_key, default_color FROM shared_colors WHERE project_id = $1 ORDER BY sort, id;

-- name: InsertSvgPreview :exec
INSERT INTO svg_previews (id, tenant_id, target_type, target_id, project_id, scene_id, status,
                          color_keys, source_image_key, source_image_url, source_media_type,
                          requested_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, 'Generating', $7, $8, $9, $10, $11, $12);

-- name: GetSvgPreview :one
SELECT * FROM svg_previews WHERE id = $1;

-- name: LatestSceneSvgPreview :one
SELECT * FROM svg_previews WHERE scene_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1;

-- name: FinishSvgPreviewReady :execrows
-- Only a preview still Generating moves: a redelivered job changes nothing.
UPDATE svg_previews
SET status = 'Ready', error = NULL, svg_url = @svg_url, thumbnail_url = @thumbnail_url,
    width = @width, height = @height, generated_by_ai = @generated_by_ai,
    quality_score = @quality_score, color_zones = @color_zones, finished_at = @finished_at
WHERE id = @id AND status = 'Generating';

-- name: FinishSvgPreviewFailed :execrows
UPDATE svg_previews
SET status = 'Failed', error = @error, finished_at = @finished_at
WHERE id = @id AND status = 'Generating';

-- name: ListStuckSvgPreviews :many
SELECT * FROM svg_previews WHERE status = 'Generating' AND created_at < $1 ORDER BY created_at, id LIMIT $2;
