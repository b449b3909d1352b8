-- The agents part (issue 8): model connections, tool servers, agent profiles, agents on seats,
-- agent runs.

-- name: InsertApiConfig :exec
INSERT INTO api_configs (id, organization_id, name, provider, endpoint, model, key_sealed, key_hint, created_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: GetApiConfig :one
SELECT * FROM api_configs WHERE id = $1;

-- name: ListApiConfigs :many
SELECT * FROM api_configs WHERE organization_id = $1 ORDER BY name, id;

-- name: DeleteApiConfig :execrows
DELETE FROM api_configs WHERE id = $1;

-- name: InsertToolServer :exec
INSERT INTO tool_servers (id, organization_id, name, url, header_names, headers_sealed, created_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);

-- name: GetToolServer :one
SELECT * FROM tool_servers WHERE id = $1;

-- name: ListToolServers :many
SELECT * FROM tool_servers WHERE organization_id = $1 ORDER BY name, id;

-- name: ListToolServersByID :many
-- The servers among ids that belong to the organization, in the order of ids.
SELECT t.* FROM tool_servers t
JOIN unnest(sqlc.arg(ids)::uuid[]) WITH ORDINALITY AS w(id, n) ON w.id = t.id
WHERE t.organization_id = sqlc.arg(organization_id)
ORDER BY w.n;

-- name: DeleteToolServer :execrows
DELETE FROM tool_servers WHERE id = $1;

-- name: UnbindToolServer :exec
-- Removes a deleted server from every agent it was bound to.
UPDATE agents SET mcp_server_ids = array_remove(mcp_server_ids, sqlc.arg(server_id)::uuid)
WHERE organization_id = sqlc.arg(organization_id) AND mcp_server_ids @> ARRAY[sqlc.arg(server_id)::uuid];

-- name: InsertAgentProfile :exec
INSERT INTO agent_profiles (id, organization_id, profile_key, version, name, description, origin, visibility, status,
    skills, tools, autonomy, content, body, forked_from, installed_from, published_at, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19);

-- name: InsertBuiltinProfile :execrows
-- Idempotent seeding: a builtin (null organization) key and version already there is left alone.
INSERT INTO agent_profiles (id, organization_id, profile_key, version, name, description, origin, visibility, status,
    skills, tools, autonomy, content, body, published_at, created_at, updated_at)
VALUES ($1, NULL, $2, $3, $4, $5, 'Builtin', 'Private', 'Published', $6, $7, $8, $9, $10, $11, $11, $11)
ON CONFLICT ON CONSTRAINT agent_profiles_org_key_version_key DO NOTHING;

-- name: CountBuiltinProfiles :one
SELECT count(*) FROM agent_profiles WHERE organization_id IS NULL;

-- name: GetAgentProfile :one
SELECT * FROM agent_profiles WHERE id = $1;

-- name: GetAgentProfileForUpdate :one
SELECT * FROM agent_profiles WHERE id = $1 FOR UPDATE;

-- name: ListLibraryProfiles :many
-- Every profile visible to an organization as its library: its own and the builtins.
SELECT * FROM agent_profiles
WHERE organization_id = sqlc.arg(organization_id) OR organization_id IS NULL
ORDER BY profile_key, id;

-- name: ListLibraryProfileVersions :many
SELECT * FROM agent_profiles
WHERE (organization_id = sqlc.arg(organization_id) OR organization_id IS NULL) AND profile_key = sqlc.arg(profile_key)
ORDER BY id;

-- name: SetAgentProfilePublication :exec
UPDATE agent_profiles SET status = $2, visibility = $3, published_at = $4, updated_at = $5 WHERE id = $1;

-- name: ListMarketplaceProfiles :many
-- Public profiles of every organization, newest published first, with whether the browsing
-- organization's library already holds the same key and version.
SELECT p.*, o.name AS organization_name,
       EXISTS (SELECT 1 FROM agent_profiles l
               WHERE l.organization_id = sqlc.arg(browser) AND l.profile_key = p.profile_key AND l.version = p.version) AS already_in_library
FROM agent_profiles p
JOIN organizations o ON o.id = p.organization_id
WHERE p.visibility = 'Public'
  AND (sqlc.narg(pattern)::text IS NULL
       OR p.profile_key ILIKE sqlc.narg(pattern) OR p.name ILIKE sqlc.narg(pattern) OR p.description ILIKE sqlc.narg(pattern))
ORDER BY p.published_at DESC, p.id DESC
LIMIT sqlc.arg(page_limit) OFFSET sqlc.arg(page_offset);

-- name: CountMarketplaceProfiles :one
SELECT count(*) FROM agent_profiles p
WHERE p.visibility = 'Public'
  AND (sqlc.narg(pattern)::text IS NULL
       OR p.profile_key ILIKE sqlc.narg(pattern) OR p.name ILIKE sqlc.narg(pattern) OR p.description ILIKE sqlc.narg(pattern));

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

-- name: InsertAgentRun :exec
INSERT INTO agent_runs (id, organization_id, team_id, agent_id, task_id, status, sections, prompt, trace, created_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- name: GetAgentRun :one
SELECT * FROM agent_runs WHERE id = $1;

-- name: GetAgentRunForUpdate :one
SELECT * FROM agent_runs WHERE id = $1 FOR UPDATE;

-- name: ListAgentRunsOfTask :many
SELECT * FROM agent_runs WHERE task_id = $1 ORDER BY created_at DESC, id DESC;

-- name: SetAgentRunExecution :exec
UPDATE agent_runs SET status = $2, draft = $3, model = $4, api_config_id = $5, fallback_used = $6, trace = $7, executed_at = $8
WHERE id = $1;

-- name: SetAgentRunApproval :exec
UPDATE agent_runs SET status = 'approved', final_text = $2, edit_distance = $3, approved_by = $4, approved_at = $5
WHERE id = $1;
