package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// auditActions reads every Action* constant of package domain from its source, so an action
// added there is checked here without anyone listing it.
func auditActions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../domain/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Action") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: %s is not a string literal", f, name.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					actions = append(actions, v)
				}
			}
		}
	}
	if len(actions) < 20 {
		t.Fatalf("found %d audit actions in ../domain: %v", len(actions), actions)
	}
	return actions
}

func TestEveryAuditActionHasItsEventInTheAsyncAPICatalogue(t *testing.T) {
	for _, action := range auditActions(t) {
		name := AuditEventName(action)
		if !events.Known(name) {
			t.Errorf("audit action %s: specs/asyncapi/events.yaml declares no %s", action, name)
			continue
		}
		if p := events.ProducerOf(name); p != string(events.ProducerOrgboard) {
			t.Errorf("%s: producer %q, want orgboard", name, p)
		}
		e := domain.NewAuditEntry(uuid.New(), domain.UserActor(uuid.New()),
			domain.Record{Action: action, Scope: domain.OrgScope(uuid.New()), TargetType: "thing", TargetID: uuid.New()}, time.Now())
		p, err := auditEvent(e)
		if err != nil {
			t.Errorf("audit action %s: %v", action, err)
			continue
		}
		if p.EventType() != name {
			t.Errorf("audit action %s: event %s, want %s", action, p.EventType(), name)
		}
	}
}

func TestAnEventCarriesTheEntrysStateFlattenedBoundedAndNoUndeclaredKey(t *testing.T) {
	scope := domain.OrgScope(uuid.New())
	team, assignee := uuid.New(), uuid.New()
	scope.TeamID = &team
	long := strings.Repeat("é", 5000)
	for _, tc := range []struct {
		rec   domain.Record
		check func(t *testing.T, p domain.EventPayload)
	}{
		{domain.Record{Action: domain.ActionTaskAssigned, Scope: scope, TargetID: uuid.New(),
			Before: map[string]any{"assignee": nil},
			After:  map[string]any{"assignee": map[string]any{"kind": "user", "id": assignee}}},
			func(t *testing.T, p domain.EventPayload) {
				got := *p.(*events.OrgboardTaskAssignedV1Payload)
				if got.BeforeAssigneeID != nil || got.AfterAssigneeKind == nil || *got.AfterAssigneeKind != "user" ||
					got.AfterAssigneeID == nil || *got.AfterAssigneeID != assignee || got.ScopeType != events.OrgboardScopeTypeTeam || got.ScopeID != team {
					t.Errorf("payload %+v", got)
				}
			}},
		{domain.Record{Action: domain.ActionToolServerTested, Scope: scope, TargetID: uuid.New(),
			After: map[string]any{"reachable": false, "error": &long, "latency_ms": int64(12)}},
			func(t *testing.T, p domain.EventPayload) {
				got := *p.(*events.OrgboardToolServerTestedV1Payload)
				if got.AfterError == nil || utf8.RuneCountInString(*got.AfterError) != eventMaxChars || *got.AfterLatencyMs != 12 {
					t.Errorf("error of %d characters, latency %v", utf8.RuneCountInString(deref(got.AfterError)), got.AfterLatencyMs)
				}
			}},
		{domain.Record{Action: domain.ActionToolCalled, Scope: scope, TargetID: uuid.New(),
			After: map[string]any{"tool": "search", "outcome": "called", "arguments": map[string]any{"token": "s3cret"}}},
			func(t *testing.T, p domain.EventPayload) {
				got := *p.(*events.OrgboardToolCalledV1Payload)
				if got.AfterTool == nil || *got.AfterTool != "search" || got.AfterOutcome == nil || *got.AfterOutcome != "called" {
					t.Errorf("payload %+v", got)
				}
			}},
	} {
		t.Run(tc.rec.Action, func(t *testing.T) {
			p, err := auditEvent(domain.NewAuditEntry(uuid.New(), domain.ServiceActor("ops", true), tc.rec, time.Now()))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
			env, err := events.NewEvent(uuid.New(), p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(env.Data), "s3cret") || strings.Contains(string(env.Data), "arguments") {
				t.Errorf("the event carries what the document does not declare: %s", env.Data)
			}
		})
	}
}

func TestAMovesEventIsTheFlattenedEntrys(t *testing.T) {
	org, team, task := uuid.New(), uuid.New(), uuid.New()
	scope := domain.TeamScope(org, team)
	move := func(from, to any) domain.Record {
		return domain.Record{Action: domain.ActionTaskMoved, Scope: scope, TargetType: domain.TargetTask, TargetID: task,
			Before: map[string]any{"status": from}, After: map[string]any{"status": to}}
	}
	at := time.Date(2026, 11, 24, 8, 0, 0, 123456000, time.UTC)
	for name, e := range map[string]domain.AuditEntry{
		"a user's move":             domain.NewAuditEntry(uuid.New(), domain.UserActor(uuid.New()), move(domain.StatusInProgress, domain.StatusInReview), at),
		"a named service's move":    domain.NewAuditEntry(uuid.New(), domain.ServiceActor("ops ü \"x\"", true), move(domain.StatusDone, domain.StatusInProgress), at),
		"an unnamed service's move": domain.NewAuditEntry(uuid.New(), domain.ServiceActor("", true), move(domain.StatusBacklog, domain.StatusInProgress), at),
		"an organization-wide scope": domain.NewAuditEntry(uuid.New(), domain.UserActor(uuid.New()), domain.Record{
			Action: domain.ActionTaskMoved, Scope: domain.OrgScope(org), TargetID: task,
			Before: map[string]any{"status": domain.StatusInReview}, After: map[string]any{"status": domain.StatusDone}}, at),
	} {
		t.Run(name, func(t *testing.T) {
			fast, ok := taskMovedEvent(e)
			if !ok {
				t.Fatal("the move's event was not built directly")
			}
			want, err := flattenedEvent(e)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast, want) {
				t.Errorf("built directly: %+v\nflattened: %+v", *fast, *want.(*events.OrgboardTaskMovedV1Payload))
			}
			got, err := auditEvent(e)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("auditEvent gives %+v, %v", got, err)
			}
		})
	}
	for name, rec := range map[string]domain.Record{
		"an unknown status": move(domain.Status("archived"), domain.StatusDone),
		"a plain string":    move("in_progress", "in_review"),
		"another key":       {Action: domain.ActionTaskMoved, Scope: scope, TargetID: task, After: map[string]any{"status": domain.StatusDone, "x": 1}},
		"another action":    {Action: domain.ActionTaskAssigned, Scope: scope, TargetID: task},
		"no target":         move(domain.StatusInProgress, domain.StatusInReview),
	} {
		t.Run(name+" takes the flattened way", func(t *testing.T) {
			if name == "no target" {
				rec.TargetID = uuid.Nil
			}
			if _, ok := taskMovedEvent(domain.NewAuditEntry(uuid.New(), domain.UserActor(uuid.New()), rec, at)); ok {
				t.Error("built directly")
			}
		})
	}
}
