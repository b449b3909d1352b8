package store

import (
	"context"
	"encoding/json"
	"fmt"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// AppendAudit writes one audit entry. Call it with the Store of the transaction that makes the
// change, so that the entry and the change commit or roll back together.
func (s *Store) AppendAudit(ctx context.Context, e domain.AuditEntry) error {
	before, err := jsonObject(e.Before)
	if err != nil {
		return fmt.Errorf("audit %s: before: %w", e.Action, err)
	}
	after, err := jsonObject(e.After)
	if err != nil {
		return fmt.Errorf("audit %s: after: %w", e.Action, err)
	}
	return s.q.InsertAuditEntry(ctx, orgboarddb.InsertAuditEntryParams{
		ID: e.ID, OrganizationID: e.OrganizationID, ActorID: e.ActorID, ActorKind: string(e.ActorKind),
		ActorName: e.ActorName, Action: e.Action, ScopeType: e.ScopeType, ScopeID: e.ScopeID,
		TargetType: e.TargetType, TargetID: e.TargetID, Before: before, After: after, At: e.At,
	})
}

// ListAudit returns one page of entries matching f, newest first, and the next cursor.
func (s *Store) ListAudit(ctx context.Context, f domain.AuditFilter) (domain.AuditPage, error) {
	p := orgboarddb.ListAuditEntriesParams{
		OrganizationID: f.OrganizationID, Action: f.Action, ActorID: f.ActorID, TargetID: f.TargetID,
		Since: f.Since, Until: f.Until, PageLimit: int32(f.Limit + 1),
	}
	if f.Cursor != nil {
		at, id := f.Cursor.At, f.Cursor.ID
		p.CursorAt, p.CursorID = &at, &id
	}
	rows, err := s.q.ListAuditEntries(ctx, p)
	if err != nil {
		return domain.AuditPage{}, err
	}
	page := domain.AuditPage{Entries: make([]domain.AuditEntry, 0, min(len(rows), f.Limit))}
	for i, r := range rows {
		if i == f.Limit {
			last := page.Entries[len(page.Entries)-1]
			page.Next = &domain.AuditCursor{At: last.At, ID: last.ID}
			break
		}
		e := domain.AuditEntry{
			ID: r.ID, OrganizationID: r.OrganizationID, ActorID: r.ActorID, ActorKind: domain.ActorKind(r.ActorKind),
			ActorName: r.ActorName, Action: r.Action, ScopeType: r.ScopeType, ScopeID: r.ScopeID,
			TargetType: r.TargetType, TargetID: r.TargetID, At: r.At,
		}
		if e.Before, err = objectOf(r.Before); err != nil {
			return domain.AuditPage{}, err
		}
		if e.After, err = objectOf(r.After); err != nil {
			return domain.AuditPage{}, err
		}
		page.Entries = append(page.Entries, e)
	}
	return page, nil
}

func jsonObject(m map[string]any) (json.RawMessage, error) {
	if m == nil {
		return nil, nil
	}
	return json.Marshal(m)
}

func objectOf(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	err := json.Unmarshal(raw, &m)
	return m, err
}
