// Package httpapi implements the generated strict server interface of specs/openapi/orgboard.yaml
// (gen/orgboard.StrictServerInterface). Handlers are thin: they turn the generated request into an
// app call with the caller as a domain.Actor, and the result into the generated response type;
// failures are returned as pkg/errs errors, which pkg/httpx renders as problem+json.
//
// Files are grouped by resource: organizations.go, structure.go, teams.go, seats.go,
// workitems.go, audit.go; convert.go maps domain values to wire models.
//
// # The agents part
//
// The operations about agents, agent profiles, model connections, tool servers and agent runs
// are implemented by the type agentsAPI, defined in agents.go and embedded in Server, so its
// methods complete the interface and the core handlers stay independent of them. Its shape:
//
//	type agentsAPI struct{ ... }            // its fields are free
//	func newAgentsAPI(a *app.App) agentsAPI // New calls it
//
// Its dependencies go through the app: the fields of app.AgentDeps (internal/app/agents_deps.go),
// filled in cmd/orgboard/agents.go (agentDeps, with the AgentsConfig env block), and reach
// them from app methods in internal/app/agents*.go. Reuse, rather than repeat:
//   - authorization: App.authorize / App.authorizeOrg / App.team with domain.ConfigureAgents,
//     domain.ManageApiKeys, domain.ViewBoard (domain.Authorize is the one decision table; a
//     caller outside the organization gets 404, a member lacking the permission 403;
//     Standing.LeadsSomeTeam is there for org-level lists a Lead needs);
//   - transactions and audit: App.inTx + App.audit(ctx, s, actor, domain.Record{...}) in the same
//     transaction (store.Store.AppendAudit; store.Store.DB() to run other queries in that tx);
//   - seats: store.Store.GetSeatForUpdate and SetSeatAgent flip a seat to ai (seats.agent_id is
//     UNIQUE; agents.seat_id should be NOT NULL UNIQUE REFERENCES seats, see migration 00001).
package httpapi
