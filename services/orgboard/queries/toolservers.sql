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

-- name: ShareToolServersByID :many
-- ListToolServersByID, with the servers locked against deletion until the transaction ends, so
-- that an agent is never bound to a server deleted meanwhile.
SELECT t.* FROM tool_servers t
JOIN unnest(sqlc.arg(ids)::uuid[]) WITH ORDINALITY AS w(id, n) ON w.id = t.id
WHERE t.organization_id = sqlc.arg(organization_id)
ORDER BY w.n
FOR SHARE OF t;

-- name: LockToolServer :execrows
-- Taken before a server is unbound and deleted: an agent being bound to it waits, or is refused.
SELECT 1 FROM tool_servers WHERE id = $1 FOR UPDATE;

-- name: DeleteToolServer :execrows
DELETE FROM tool_servers WHERE id = $1;

-- name: UnbindToolServer :exec
-- Removes a deleted server from every agent it was bound to.
UPDATE agents SET mcp_server_ids = array_remove(mcp_server_ids, sqlc.arg(server_id)::uuid)
WHERE organization_id = sqlc.arg(organization_id) AND mcp_server_ids @> ARRAY[sqlc.arg(server_id)::uuid];
