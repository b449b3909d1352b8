-- name: InsertTeam :exec
INSERT INTO teams (id, organization_id, product_id, name, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: GetTeam :one
SELECT id, organization_id, product_id, name, created_at FROM teams WHERE id = $1;

-- name: ListTeamsOfOrganization :many
SELECT id, organization_id, product_id, name, created_at
FROM teams
WHERE organization_id = sqlc.arg(organization_id)
  AND (sqlc.narg(product_id)::uuid IS NULL OR product_id = sqlc.narg(product_id))
ORDER BY name, id;

-- name: ListTeamsOfUser :many
SELECT t.id, t.organization_id, t.product_id, t.name, t.created_at
FROM teams t
JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = sqlc.arg(user_id)
WHERE (sqlc.narg(product_id)::uuid IS NULL OR t.product_id = sqlc.narg(product_id))
ORDER BY t.name, t.id;

-- name: ListAllTeams :many
SELECT id, organization_id, product_id, name, created_at
FROM teams
WHERE (sqlc.narg(product_id)::uuid IS NULL OR product_id = sqlc.narg(product_id))
ORDER BY name, id;

-- name: UpsertTeamLead :one
-- Idempotent: an existing Lead keeps its assigned_at; inserted tells whether it is new. DO UPDATE
-- returns the row even when a concurrent transaction inserted it (a DO NOTHING followed by a
-- read would not see it), after waiting for that transaction.
INSERT INTO team_leads (team_id, organization_id, user_id, assigned_at)
VALUES ($1, $2, $3, $4)
ON CONFLICT (team_id, user_id) DO UPDATE SET assigned_at = team_leads.assigned_at
RETURNING team_id, user_id, assigned_at, (xmax = 0)::boolean AS inserted;

-- name: DeleteTeamLead :execrows
DELETE FROM team_leads WHERE team_id = $1 AND user_id = $2;

-- name: ListTeamLeads :many
SELECT team_id, user_id, assigned_at FROM team_leads WHERE team_id = $1 ORDER BY assigned_at, user_id;

-- name: GetTeamWithStanding :one
-- A team and what the user holds along its scope chain [team, org], as GetStanding reads it
-- (role NULL: not a member), in one round trip.
SELECT sqlc.embed(t), m.role,
       EXISTS (SELECT 1 FROM team_leads l
               WHERE l.team_id = t.id AND l.user_id = m.user_id) AS team_lead,
       EXISTS (SELECT 1 FROM team_leads l
               WHERE l.organization_id = m.organization_id AND l.user_id = m.user_id) AS leads_some_team
FROM teams t
LEFT JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = sqlc.arg(user_id)
WHERE t.id = sqlc.arg(id);
