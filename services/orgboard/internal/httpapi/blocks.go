package httpapi

import (
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
)

// checkBlocksThemselves are the operations whose use case reads the caller's blocks together
// with its own reads (one round trip) and refuses a blocked caller first, as refuseBlocked does.
var checkBlocksThemselves = map[string]bool{
	"GetBoard":   true, // app.Board
	"MoveTask":   true, // app.MoveTask (taskForUpdate)
	"AssignTask": true, // app.AssignTask (taskForUpdate)
}

// refuseBlocked runs before every operation: a user the identity service banned, or whose
// tenant it suspended, gets 403 with the reason, whatever the operation.
func (s *Server) refuseBlocked(next orgboardserver.StrictHandlerFunc, operationID string) orgboardserver.StrictHandlerFunc {
	checked := checkBlocksThemselves[operationID]
	return func(c echo.Context, req any) (any, error) {
		ctx := c.Request().Context()
		actor, err := ActorOf(ctx)
		if err != nil {
			return nil, err
		}
		if checked {
			return next(c, req)
		}
		if err := s.app.CheckCaller(ctx, actor); err != nil {
			return nil, err
		}
		return next(c, req)
	}
}
