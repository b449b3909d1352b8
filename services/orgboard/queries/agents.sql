-- name: InsertAgent :exec
INSERT INTO agents (id, organization_id, team_id, seat_id, name, monogram, autonomy, api_config_id, fallback_api_config_id,
    skill_keys, docs, persona, mcp_server_ids, profile_id, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16);

-- name: UpdateAgent :exec
UPDATE agents SET name = $2, monogram = $3, autonomy = $4, api_config_id = $5, fallback_api_config_id = $6,
    skill_keys = $7, docs = $8, persona = $9, mcp_server_ids = $10, profile_id = $11, updated_at = $12
WHERE id = $1;

-- name: GetAgent :one
SELECT * FROM agents WHERE id = $1;

-- name: GetAgentBySeat :one
SELECT * FROM agents WHERE seat_id = $1;
