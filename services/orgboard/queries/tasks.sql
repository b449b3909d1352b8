-- name: InsertTask :exec
INSERT INTO work_items (id, organization_id, team_id, type, title, description, status, parent_id, created_by, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10);

-- name: GetTask :one
SELECT id, organization_id, team_id, type, title, description, status, assignee_user_id, assignee_seat_id, parent_id, created_by, created_at, updated_at
FROM work_items WHERE id = $1;

-- name: GetTaskForUpdateWithStanding :one
-- A task, locked for a change, and what the user holds along its scope chain [team, org], as
-- GetStanding reads it (role NULL: not a member), in one round trip.
SELECT sqlc.embed(w), m.role,
       EXISTS (SELECT 1 FROM team_leads l
               WHERE l.team_id = w.team_id AND l.user_id = m.user_id) AS team_lead,
       EXISTS (SELECT 1 FROM team_leads l
               WHERE l.organization_id = m.organization_id AND l.user_id = m.user_id) AS leads_some_team
FROM work_items w
LEFT JOIN memberships m ON m.organization_id = w.organization_id AND m.user_id = sqlc.arg(user_id)
WHERE w.id = sqlc.arg(id)
FOR UPDATE OF w;

-- name: ListBoardItems :many
-- Every work item of a team in one query; the columns are formed in the application.
SELECT id, organization_id, team_id, type, title, description, status, assignee_user_id, assignee_seat_id, parent_id, created_by, created_at, updated_at
FROM work_items WHERE team_id = $1
ORDER BY created_at, id;

-- name: SetTaskStatus :exec
UPDATE work_items SET status = $2, updated_at = $3 WHERE id = $1;

-- name: SetTaskAssignee :exec
UPDATE work_items SET assignee_user_id = $2, assignee_seat_id = $3, updated_at = $4 WHERE id = $1;

-- name: ListCartable :many
SELECT id, organization_id, team_id, type, title, description, status, assignee_user_id, assignee_seat_id, parent_id, created_by, created_at, updated_at
FROM work_items
WHERE assignee_user_id = sqlc.arg(user_id)
  AND (sqlc.narg(organization_id)::uuid IS NULL OR organization_id = sqlc.narg(organization_id))
  AND (sqlc.arg(include_done)::bool OR status <> 'done')
  AND organization_id IN (SELECT organization_id FROM memberships WHERE user_id = sqlc.arg(user_id))
ORDER BY updated_at DESC, id DESC;

-- name: CopyTasks :copyfrom
INSERT INTO work_items (id, organization_id, team_id, type, title, description, status, parent_id, created_by, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);
