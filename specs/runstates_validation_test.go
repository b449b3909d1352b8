package specs

import "github.com/videotpl/platform/gen/events"

// The valid payload of the agent run state event, in validPayloads.
func init() {
	validPayloads[events.OrgboardAgentRunStateChangedV1] = `{"agent_run_id":"` + id1 + `","organization_id":"` + id2 + `","team_id":"` + id1 +
		`","agent_id":"` + id2 + `","task_id":"` + id1 + `","status":"failed","failure_reason":"no model connection answered in 3 attempts: status 503",` +
		`"fallback_used":true,"attempts":3,"changed_at":"` + ts + `"}`
}
