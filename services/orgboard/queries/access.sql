-- name: GetStanding :one
-- What a user holds along the scope chain [team, org]: the organization role, whether the user
-- is a Lead of the team (false when no team is given) and of any team of the organization.
-- No row: not a member.
SELECT m.role,
       EXISTS (SELECT 1 FROM team_leads l
               WHERE l.team_id = sqlc.narg(team_id) AND l.user_id = m.user_id) AS team_lead,
       EXISTS (SELECT 1 FROM team_leads l
               WHERE l.organization_id = m.organization_id AND l.user_id = m.user_id) AS leads_some_team
FROM memberships m
WHERE m.organization_id = sqlc.arg(organization_id) AND m.user_id = sqlc.arg(user_id);
