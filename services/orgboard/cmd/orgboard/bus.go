package main

import (
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/app"
)

// busHandlers are the events orgboard consumes from its queue <BUS_SERVICE>.events, by event
// type: the one place a consumer is added. The queue is bound to exactly these types; with none,
// orgboard declares no queue and only forwards its outbox.
func busHandlers(_ *app.App) bus.Handlers {
	return bus.Handlers{}
}
