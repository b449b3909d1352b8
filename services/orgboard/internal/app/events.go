package app

import (
	"encoding/json"
	"fmt"
	"maps"

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
