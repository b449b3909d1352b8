-- name: InsertAgentRun :exec
INSERT INTO agent_runs (id, organization_id, team_id, agent_id, task_id, status, sections, prompt, trace, created_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- name: GetAgentRun :one
SELECT * FROM agent_runs WHERE id = $1;

-- name: GetAgentRunForUpdate :one
SELECT * FROM agent_runs WHERE id = $1 FOR UPDATE;

-- name: ListAgentRunsOfTask :many
SELECT * FROM agent_runs WHERE task_id = $1 ORDER BY created_at DESC, id DESC;

-- name: ClaimAgentRun :execrows
UPDATE agent_runs SET claimed_at = @claimed_at
WHERE id = @id AND status = 'prepared' AND (claimed_at IS NULL OR claimed_at < @stale_before::timestamptz);

-- name: ReleaseAgentRun :exec
UPDATE agent_runs SET claimed_at = NULL WHERE id = @id AND status = 'prepared' AND claimed_at = @claimed_at;

-- name: SetAgentRunExecution :execrows
UPDATE agent_runs SET status = @status, draft = @draft, model = @model, api_config_id = @api_config_id,
    fallback_used = @fallback_used, trace = @trace, executed_at = @executed_at, failure_reason = @failure_reason, claimed_at = NULL
WHERE id = @id AND status = 'prepared' AND claimed_at = @claimed_at::timestamptz;

-- name: SetAgentRunApproval :exec
UPDATE agent_runs SET status = 'approved', final_text = $2, edit_distance = $3, approved_by = $4, approved_at = $5
WHERE id = $1;

-- name: RequestAgentRunJob :execrows
UPDATE agent_runs SET status = 'executing', claimed_at = NULL, job_claim = NULL, attempts = 0, failure_reason = NULL
WHERE id = @id AND status = 'prepared' AND (claimed_at IS NULL OR claimed_at < @stale_before::timestamptz);

-- name: ClaimAgentRunJob :one
UPDATE agent_runs SET job_claim = @job_claim, claimed_at = @claimed_at, attempts = attempts + 1
WHERE id = @id AND status = 'executing' AND (claimed_at IS NULL OR claimed_at < @stale_before::timestamptz)
RETURNING attempts;

-- name: RenewAgentRunJobClaim :one
UPDATE agent_runs SET job_claim = @next_claim, claimed_at = @claimed_at, attempts = attempts + @add_attempts::integer
WHERE id = @id AND status = 'executing' AND job_claim = @job_claim
RETURNING attempts;

-- name: ReleaseAgentRunJob :exec
UPDATE agent_runs SET job_claim = NULL, claimed_at = NULL WHERE id = @id AND status = 'executing' AND job_claim = @job_claim;

-- name: SetAgentRunJobOutcome :execrows
UPDATE agent_runs SET status = @status, draft = @draft, model = @model, api_config_id = @api_config_id,
    fallback_used = @fallback_used, trace = @trace, executed_at = @executed_at, failure_reason = @failure_reason,
    job_claim = NULL, claimed_at = NULL
WHERE id = @id AND status = 'executing' AND job_claim = @job_claim;
