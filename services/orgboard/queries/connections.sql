-- name: InsertApiConfig :exec
INSERT INTO api_configs (id, organization_id, name, provider, endpoint, model, key_sealed, key_hint, created_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: GetApiConfig :one
SELECT * FROM api_configs WHERE id = $1;

-- name: ListApiConfigs :many
SELECT * FROM api_configs WHERE organization_id = $1 ORDER BY name, id;

-- name: DeleteApiConfig :execrows
DELETE FROM api_configs WHERE id = $1;
