-- The AEP files of projects and the multipart uploads in progress.

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
