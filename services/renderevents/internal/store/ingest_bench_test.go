package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// BenchmarkApplyBatches applies a realistic stream in batches of 256, as the consumer does,
// without the broker: the database-bound part of ingestion.
func BenchmarkApplyBatches(b *testing.B) {
	ctx := context.Background()
	st, _ := newStoreB(b)
	stream, err := sim.Generate(sim.Options{Tenants: 50, Jobs: 25000, Snapshots: 5000, FailRate: 0.05, CancelRate: 0.05, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	evs := parseB(b, stream.Messages)
	in := app.NewIngest(st)
	b.ResetTimer()
	began := time.Now()
	n := 0
	for i := 0; i < b.N; i++ {
		for start := 0; start < len(evs); start += 256 {
			if err := in.ApplyBatch(ctx, evs[start:min(start+256, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
		n += len(evs)
	}
	b.ReportMetric(float64(n)/time.Since(began).Seconds(), "events/s")
}
