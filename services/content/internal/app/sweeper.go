package app

import (
	"context"
	"log/slog"
	"time"
)

// RunSweeper aborts stale multipart uploads and fails stuck previews now and then every
// interval, until ctx ends.
func (a *App) RunSweeper(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := a.SweepAepUploads(ctx); err != nil {
			a.log.WarnContext(ctx, "sweeping AEP uploads", slog.String("error", err.Error()))
		} else if n > 0 {
			a.log.InfoContext(ctx, "aborted AEP uploads never completed", slog.Int("count", n))
		}
		if n, err := a.SweepStuckPreviews(ctx); err != nil {
			a.log.WarnContext(ctx, "sweeping SVG previews", slog.String("error", err.Error()))
		} else if n > 0 {
			a.log.InfoContext(ctx, "failed SVG previews that never finished", slog.Int("count", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
