package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ListAuditEntries implements GET /api/governance/audit.
func (s *Server) ListAuditEntries(ctx context.Context, req orgboardserver.ListAuditEntriesRequestObject) (orgboardserver.ListAuditEntriesResponseObject, error) {
	actor, err := ActorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	f := domain.AuditFilter{
		OrganizationID: p.OrganizationId, Action: p.Action, ActorID: p.ActorId, TargetID: p.TargetId,
		Since: p.Since, Until: p.Until, Limit: deref(p.Limit),
	}
	if p.Cursor != nil {
		if f.Cursor, err = app.DecodeAuditCursor(*p.Cursor); err != nil {
			return nil, err
		}
	}
	page, err := s.app.ListAudit(ctx, actor, f)
	if err != nil {
		return nil, err
	}
	return orgboardserver.ListAuditEntries200JSONResponse(auditPageOut(page)), nil
}
