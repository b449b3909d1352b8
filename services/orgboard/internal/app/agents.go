package app

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
	"github.com/videotpl/platform/services/orgboard/internal/domain/agentsmd"
)

// AgentInput is the complete configuration of a seat's agent; nil fields take their defaults
// (or the applied profile's values).
type AgentInput struct {
	Name                string
	Monogram            *string
	Autonomy            *domain.Autonomy
	ApiConfigID         uuid.UUID
	FallbackApiConfigID *uuid.UUID
	SkillKeys           *[]string
	Docs                *[]string
	Persona             *string
	McpServerIDs        *[]uuid.UUID
	ProfileID           *uuid.UUID
}

// ConfigureSeatAgent configures the agent of a seat (ConfigureAgents at [team, org]): a seat
// without an agent gets a new one and flips to ai (created true); a seat with one has it
// reconfigured in place. A human seat is a Conflict. References must be of the seat's
// organization (the profile may be a builtin), else 400.
func (a *App) ConfigureSeatAgent(ctx context.Context, actor domain.Actor, seatID uuid.UUID, in AgentInput) (ag domain.Agent, created bool, err error) {
	name := strings.TrimSpace(in.Name)
	var fields []errs.FieldError
	if name == "" {
		fields = append(fields, errs.Field("body.name", "must not be blank"))
	}
	if in.Monogram != nil && strings.TrimSpace(*in.Monogram) == "" {
		fields = append(fields, errs.Field("body.monogram", "must not be blank"))
	}
	if in.Autonomy != nil && !agentsmd.ValidAutonomy(string(*in.Autonomy)) {
		fields = append(fields, errs.Field("body.autonomy", "must be one of "+strings.Join(agentsmd.Autonomies, ", ")))
	}
	if in.FallbackApiConfigID != nil && *in.FallbackApiConfigID == in.ApiConfigID {
		fields = append(fields, errs.Field("body.fallback_api_config_id", "must differ from api_config_id"))
	}
	if len(fields) > 0 {
		return ag, false, errs.InvalidFields(fields...)
	}
	err = a.store.InTx(ctx, func(s domain.Store) error {
		seat, err := s.GetSeatForUpdate(ctx, seatID)
		if err != nil {
			return err
		}
		if _, err := a.authorize(ctx, s, actor, seat.Scope(), domain.ConfigureAgents, "seat"); err != nil {
			return err
		}
		if seat.State == domain.SeatHuman {
			return errs.E(errs.Conflict, "the seat is occupied by a human; open it before configuring an agent")
		}
		org := seat.OrganizationID
		if err := a.checkAgentReferences(ctx, s, org, in); err != nil {
			return err
		}
		now := a.now()
		ag = domain.Agent{
			OrganizationID: org, TeamID: seat.TeamID, SeatID: seat.ID, Name: name, Monogram: domain.Monogram(name),
			Autonomy: domain.AutonomySuggest, ApiConfigID: in.ApiConfigID, FallbackApiConfigID: in.FallbackApiConfigID,
			SkillKeys: []string{}, Docs: []string{}, McpServerIDs: []uuid.UUID{}, ProfileID: in.ProfileID, UpdatedAt: now,
		}
		if in.ProfileID != nil {
			p, err := s.GetAgentProfile(ctx, *in.ProfileID)
			if err != nil || !p.InLibraryOf(org) {
				return errs.InvalidFields(errs.Field("body.profile_id", "is not a profile of the organization's library"))
			}
			ag.Persona, ag.SkillKeys, ag.Autonomy = p.Body, append([]string{}, p.Skills...), p.Autonomy
		}
		if in.Monogram != nil {
			ag.Monogram = strings.TrimSpace(*in.Monogram)
		}
		if in.Autonomy != nil {
			ag.Autonomy = *in.Autonomy
		}
		if in.SkillKeys != nil {
			ag.SkillKeys = dedupe(*in.SkillKeys)
		}
		if in.Docs != nil {
			ag.Docs = append([]string{}, *in.Docs...)
		}
		if in.Persona != nil {
			ag.Persona = *in.Persona
		}
		if in.McpServerIDs != nil {
			ag.McpServerIDs = dedupeIDs(*in.McpServerIDs)
		}
		var before map[string]any
		if seat.AgentID == nil {
			created = true
			ag.ID, ag.CreatedAt = a.newID(), now
			if err := s.InsertAgent(ctx, ag); err != nil {
				return err
			}
			if err := s.SetSeatAgent(ctx, seat.ID, ag.ID); err != nil {
				return err
			}
		} else {
			old, err := s.GetAgent(ctx, *seat.AgentID)
			if err != nil {
				return err
			}
			ag.ID, ag.CreatedAt = old.ID, old.CreatedAt
			if err := s.UpdateAgent(ctx, ag); err != nil {
				return err
			}
			before = agentAudit(old)
		}
		return a.audit(ctx, s, actor, domain.Record{
			Action: domain.ActionAgentConfigured, Scope: seat.Scope(),
			TargetType: domain.TargetAgent, TargetID: ag.ID, Before: before, After: agentAudit(ag),
		})
	})
	return ag, created, err
}

// checkAgentReferences refuses model connections and tool servers outside the organization.
func (a *App) checkAgentReferences(ctx context.Context, s domain.Store, org uuid.UUID, in AgentInput) error {
	var fields []errs.FieldError
	refs := []struct {
		field string
		id    *uuid.UUID
	}{{"body.api_config_id", &in.ApiConfigID}, {"body.fallback_api_config_id", in.FallbackApiConfigID}}
	for _, ref := range refs {
		if ref.id == nil {
			continue
		}
		field := ref.field
		c, err := s.GetApiConfig(ctx, *ref.id)
		if errs.KindOf(err) == errs.NotFound || (err == nil && c.OrganizationID != org) {
			fields = append(fields, errs.Field(field, "is not a model connection of the organization"))
		} else if err != nil {
			return err
		}
	}
	if in.McpServerIDs != nil && len(*in.McpServerIDs) > 0 {
		ids := dedupeIDs(*in.McpServerIDs)
		found, err := s.ShareToolServersByID(ctx, org, ids)
		if err != nil {
			return err
		}
		if len(found) != len(ids) {
			fields = append(fields, errs.Field("body.mcp_server_ids", "contains a tool server that is not of the organization"))
		}
	}
	if len(fields) > 0 {
		return errs.InvalidFields(fields...)
	}
	return nil
}

func agentAudit(ag domain.Agent) map[string]any {
	return map[string]any{"seat_id": ag.SeatID, "name": ag.Name, "monogram": ag.Monogram, "autonomy": ag.Autonomy,
		"api_config_id": ag.ApiConfigID, "fallback_api_config_id": ag.FallbackApiConfigID, "skill_keys": ag.SkillKeys,
		"docs": ag.Docs, "persona_chars": utf8.RuneCountInString(ag.Persona), "mcp_server_ids": ag.McpServerIDs,
		"profile_id": ag.ProfileID}
}

// GetSeatAgent reads the agent of a seat (ViewBoard at [team, org]).
func (a *App) GetSeatAgent(ctx context.Context, actor domain.Actor, seatID uuid.UUID) (domain.Agent, error) {
	s := a.store
	seat, err := s.GetSeat(ctx, seatID)
	if err != nil {
		return domain.Agent{}, err
	}
	if _, err := a.authorize(ctx, s, actor, seat.Scope(), domain.ViewBoard, "seat"); err != nil {
		return domain.Agent{}, err
	}
	if seat.AgentID == nil {
		return domain.Agent{}, errs.E(errs.NotFound, "the seat has no agent")
	}
	return s.GetAgentBySeat(ctx, seat.ID)
}

func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func dedupeIDs(in []uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(in))
	seen := map[uuid.UUID]bool{}
	for _, id := range in {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
