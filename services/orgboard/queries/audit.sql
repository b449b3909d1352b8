-- name: InsertAuditEntry :exec
INSERT INTO audit_entries (id, organization_id, actor_id, actor_kind, actor_name, action, scope_type, scope_id, target_type, target_id, before, after, at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- name: ListAuditEntries :many
-- Newest first, keyset paginated on (at, id): the cursor is the last entry of the previous page.
SELECT id, organization_id, actor_id, actor_kind, actor_name, action, scope_type, scope_id, target_type, target_id, before, after, at
FROM audit_entries
WHERE organization_id = sqlc.arg(organization_id)
  AND (sqlc.narg(action)::text IS NULL OR action = sqlc.narg(action))
  AND (sqlc.narg(actor_id)::uuid IS NULL OR actor_id = sqlc.narg(actor_id))
  AND (sqlc.narg(target_id)::uuid IS NULL OR target_id = sqlc.narg(target_id))
  AND (sqlc.narg(since)::timestamptz IS NULL OR at >= sqlc.narg(since))
  AND (sqlc.narg(until)::timestamptz IS NULL OR at < sqlc.narg(until))
  AND (sqlc.narg(cursor_at)::timestamptz IS NULL
       OR (at, id) < (sqlc.narg(cursor_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY at DESC, id DESC
LIMIT sqlc.arg(page_limit);
