package app

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// Bounds of what an event carries of an audit entry's before and after: remote text (a tool
// server's error) is cut, so no value can make the change fail; the AsyncAPI document bounds
// every field at least this far.
const (
	eventMaxChars = 2000
	eventMaxItems = 100
)

// AuditEventName is the event published for an audit action: orgboard.<action>.v1.
func AuditEventName(action string) string { return "orgboard." + action + ".v1" }

// auditEvent is the event of the audit entry e, built with the generated payload type of
// orgboard.<action>.v1: the entry's ids, scope and actor, and its before and after flattened to
// before_<key> and after_<key> (nested objects joined with "_", e.g. after_assignee_id). Keys the
// payload does not declare are left out, so what an entry records but an event must not carry
// (texts, tool arguments) stays in the audit log.
func auditEvent(e domain.AuditEntry) (domain.EventPayload, error) {
	if p, ok := taskMovedEvent(e); ok {
		return p, nil
	}
	return flattenedEvent(e)
}

// flattenedEvent is auditEvent for any action: the entry flattened, encoded to JSON and decoded
// by the generated payload type of its event.
func flattenedEvent(e domain.AuditEntry) (domain.EventPayload, error) {
	name := AuditEventName(e.Action)
	p, err := events.NewPayload(name)
	if err != nil {
		return nil, fmt.Errorf("audit action %s has no event: %w", e.Action, err)
	}
	fields := map[string]any{
		"audit_entry_id": e.ID, "organization_id": e.OrganizationID, "scope_type": e.ScopeType, "scope_id": e.ScopeID,
		"target_id": e.TargetID, "actor_kind": e.ActorKind, "actor_id": e.ActorID, "actor_name": e.ActorName,
	}
	for prefix, state := range map[string]map[string]any{"before_": e.Before, "after_": e.After} {
		flat, err := flatten(prefix, state)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		maps.Copy(fields, flat)
	}
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// The generated decoder validates against the document (types, formats, bounds).
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// taskMovedEvent is the event of a move's entry built directly, without the trip through JSON
// and the generated decoder that flattenedEvent takes (a move is the hot write; the payload is
// still validated when it is published). It gives what flattenedEvent gives
// (TestAMovesEventIsTheFlattenedEntrys); ok is false for any other entry.
func taskMovedEvent(e domain.AuditEntry) (p *events.OrgboardTaskMovedV1Payload, ok bool) {
	if e.Action != domain.ActionTaskMoved || len(e.Before) != 1 || len(e.After) != 1 || e.TargetID == nil {
		return nil, false
	}
	from, okFrom := e.Before["status"].(domain.Status)
	to, okTo := e.After["status"].(domain.Status)
	// Known statuses only: their JSON is their text, which no bound cuts.
	if !okFrom || !okTo || !slices.Contains(domain.Columns, from) || !slices.Contains(domain.Columns, to) {
		return nil, false
	}
	target := *e.TargetID
	before, after := string(from), string(to)
	return &events.OrgboardTaskMovedV1Payload{
		AuditEntryID: e.ID, OrganizationID: e.OrganizationID,
		ScopeType: events.OrgboardScopeType(e.ScopeType), ScopeID: e.ScopeID, TargetID: &target,
		ActorKind: events.OrgboardActorKind(e.ActorKind), ActorID: e.ActorID, ActorName: e.ActorName,
		BeforeStatus: &before, AfterStatus: &after,
	}, true
}

// flatten turns state (values of any Go type) into JSON values under prefix+key, nested
// objects joined with "_", strings cut to eventMaxChars and lists to eventMaxItems.
func flatten(prefix string, state map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if len(state) == 0 {
		return out, nil
	}
	raw, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}
	var plain map[string]any
	if err := json.Unmarshal(raw, &plain); err != nil {
		return nil, err
	}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if nested, ok := v.(map[string]any); ok {
				walk(prefix+k+"_", nested)
				continue
			}
			out[prefix+k] = bounded(v)
		}
	}
	walk(prefix, plain)
	return out, nil
}

// bounded cuts a string to eventMaxChars characters and a list to eventMaxItems items.
func bounded(v any) any {
	switch v := v.(type) {
	case string:
		if r := []rune(v); len(r) > eventMaxChars {
			return string(r[:eventMaxChars-1]) + "…"
		}
	case []any:
		if len(v) > eventMaxItems {
			v = v[:eventMaxItems]
		}
		for i := range v {
			v[i] = bounded(v[i])
		}
		return v
	}
	return v
}
