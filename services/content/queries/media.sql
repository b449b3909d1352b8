-- The media pipeline: AEP files, multipart uploads, font files and SVG previews.

-- name: SetProjectAepFile :one
-- Records a new AEP file on the project and returns the key of the file it replaces ('' when none).
WITH prev AS (SELECT p.aep_file_key FROM projects p WHERE p.id = @id FOR UPDATE)
UPDATE projects
SET aep_file_url = @url, aep_file_md5 = @md5, aep_file_size_bytes = @size_bytes,
    aep_file_key = @key, updated_at = @updated_at
FROM prev
WHERE projects.id = @id
RETURNING coalesce(prev.aep_file_key, '')::text AS previous_key;

-- name: InsertAepUpload :exec
INSERT INTO aep_uploads (id, project_id, upload_id, bucket, key, filename, total_size_bytes,
                         chunk_size_bytes, part_count, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: GetAepUpload :one
SELECT * FROM aep_uploads WHERE upload_id = $1 AND project_id = $2;

-- name: DeleteAepUpload :exec
DELETE FROM aep_uploads WHERE id = $1;

-- name: ListStaleAepUploads :many
SELECT * FROM aep_uploads WHERE created_at < $1 ORDER BY created_at, id LIMIT $2;

-- name: InsertUploadedFont :exec
INSERT INTO fonts (id, name, original_name, system_name, family, style, direction, weight,
                   file_key, file_url, file_size_bytes, file_format, is_premium, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);

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
