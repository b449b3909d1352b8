package httpapi

import (
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
)

// refuseBlocked runs before every operation: a user the identity service banned, or whose
// tenant it suspended, gets 403 with the reason, whatever the operation.
func (s *Server) refuseBlocked(next orgboardserver.StrictHandlerFunc, _ string) orgboardserver.StrictHandlerFunc {
	return func(c echo.Context, req any) (any, error) {
		ctx := c.Request().Context()
		actor, err := ActorOf(ctx)
		if err != nil {
			return nil, err
		}
		if err := s.app.CheckCaller(ctx, actor); err != nil {
			return nil, err
		}
		return next(c, req)
	}
}
