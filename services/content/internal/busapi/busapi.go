// Package busapi is the content service's messaging: the consumer of its queue, which decodes
// each command and hands it to the application (as httpapi does for HTTP requests), and the
// forwarder that moves the outbox to the broker.
package busapi

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/bus"
)

// Start starts the forwarder (events and preview commands to the broker) and the consumer of the
// service's queue <service>.events, bound to the preview command, and returns once the consumer
// is subscribed (bus.Start).
func Start(ctx context.Context, cfg bus.Config, pool *pgxpool.Pool, handle PreviewJobHandler, metrics bus.Metrics, log *slog.Logger) (*bus.Service, error) {
	return bus.Start(ctx, cfg, pool, previewJobs(handle), metrics, log)
}
