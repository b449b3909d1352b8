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
