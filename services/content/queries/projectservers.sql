-- Render servers.

-- name: ProjectServerExists :one
SELECT EXISTS (SELECT 1 FROM project_servers WHERE id = $1);

-- name: ListProjectServers :many
SELECT * FROM project_servers ORDER BY name, id;
