-- The font library.

-- name: ListFonts :many
SELECT * FROM fonts ORDER BY name, id;

-- name: DeleteFont :execrows
DELETE FROM fonts WHERE id = $1;

-- name: InsertUploadedFont :exec
INSERT INTO fonts (id, name, original_name, system_name, family, style, direction, weight,
                   file_key, file_url, file_size_bytes, file_format, is_premium, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);
