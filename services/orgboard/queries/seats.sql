-- name: InsertSeat :exec
INSERT INTO seats (id, organization_id, team_id, title, state, user_id, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: GetSeat :one
SELECT id, organization_id, team_id, title, state, user_id, agent_id, created_at FROM seats WHERE id = $1;

-- name: GetSeatForUpdate :one
SELECT id, organization_id, team_id, title, state, user_id, agent_id, created_at FROM seats WHERE id = $1 FOR UPDATE;

-- name: ListSeats :many
SELECT id, organization_id, team_id, title, state, user_id, agent_id, created_at
FROM seats WHERE team_id = $1 ORDER BY created_at, id;

-- name: SetSeatAgent :exec
-- Flips a seat to ai, pointing at its agent (used when an agent is configured on the seat).
UPDATE seats SET state = 'ai', user_id = NULL, agent_id = $2 WHERE id = $1;
