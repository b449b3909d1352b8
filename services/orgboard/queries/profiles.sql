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
