package main

import (
	"maps"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/busapi"
)

// busHandlers are the events orgboard consumes from its queue <BUS_SERVICE>.events, by event
// type: the one place a consumer is added. The queue is bound to exactly these types; with none,
// orgboard declares no queue and only forwards its outbox.
func busHandlers(a *app.App) bus.Handlers {
	h := bus.Handlers{}
	// Bans and tenant suspensions keep the identity service's blocked users out.
	maps.Copy(h, busapi.IdentityHandlers(a))
	// The commands the service sends itself: the background executes of agent runs.
	maps.Copy(h, busapi.RunJobs(a.HandleRunJob))
	return h
}
