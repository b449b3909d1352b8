-- name: InsertOrganization :exec
INSERT INTO organizations (id, name, created_by, created_at)
VALUES ($1, $2, $3, $4);

-- name: GetOrganization :one
SELECT id, name, created_by, created_at FROM organizations WHERE id = $1;

-- name: LockOrganization :one
SELECT id FROM organizations WHERE id = $1 FOR UPDATE;

-- name: ListOrganizationsOfUser :many
SELECT o.id, o.name, o.created_by, o.created_at, m.role
FROM organizations o
JOIN memberships m ON m.organization_id = o.id
WHERE m.user_id = $1
ORDER BY o.name, o.id;

-- name: ListAllOrganizations :many
SELECT id, name, created_by, created_at FROM organizations ORDER BY name, id;

-- name: InsertMembership :exec
INSERT INTO memberships (organization_id, user_id, role, joined_at, tenant_id)
VALUES ($1, $2, $3, $4, $5);

-- name: GetMembership :one
SELECT organization_id, user_id, role, joined_at, tenant_id
FROM memberships WHERE organization_id = $1 AND user_id = $2;

-- name: ListMemberships :many
SELECT organization_id, user_id, role, joined_at, tenant_id
FROM memberships WHERE organization_id = $1
ORDER BY joined_at, user_id;

-- name: InsertInvitation :exec
INSERT INTO invitations (id, organization_id, email, user_id, role, token_sha256, invited_by, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- name: CountPendingInvitations :one
-- Pending invitations addressed to the same invitee (by user id or case-insensitive email).
SELECT count(*) FROM invitations
WHERE organization_id = sqlc.arg(organization_id)
  AND accepted_at IS NULL
  AND expires_at > sqlc.arg(now)
  AND (user_id = sqlc.narg(user_id) OR lower(email) = lower(sqlc.narg(email)));

-- name: GetInvitationForUpdate :one
SELECT id, organization_id, email, user_id, role, token_sha256, invited_by, created_at, expires_at, accepted_at, accepted_by
FROM invitations WHERE id = $1 FOR UPDATE;

-- name: ListInvitations :many
SELECT id, organization_id, email, user_id, role, token_sha256, invited_by, created_at, expires_at, accepted_at, accepted_by
FROM invitations WHERE organization_id = $1
ORDER BY created_at DESC, id DESC;

-- name: MarkInvitationAccepted :exec
UPDATE invitations SET accepted_at = $2, accepted_by = $3 WHERE id = $1 AND accepted_at IS NULL;
