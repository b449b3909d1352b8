package store_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/store/sim"
)

// BenchmarkApplyBatches applies a realistic stream in batches of 256, as the consumer does,
// without the broker: the database-bound part of ingestion. Besides the rate it reports the
// CPU per event of this process and of its PostgreSQL backends (when the server is local),
// which the load of the machine moves much less.
func BenchmarkApplyBatches(b *testing.B) {
	ctx := context.Background()
	st, pool := newStoreB(b)
	stream, err := sim.Generate(sim.Options{Tenants: 50, Jobs: 25000, Snapshots: 5000, FailRate: 0.05, CancelRate: 0.05, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	evs := parseB(b, stream.Messages)
	in := app.NewIngest(st)
	b.ResetTimer()
	began, selfBefore, pgBefore := time.Now(), selfCPU(), backendsCPU(ctx, b, pool)
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
	b.ReportMetric(float64((selfCPU()-selfBefore).Microseconds())/float64(n), "cpu-us/event")
	if pgBefore >= 0 {
		b.ReportMetric(float64((backendsCPU(ctx, b, pool)-pgBefore).Microseconds())/float64(n), "pg-cpu-us/event")
	}
}

// selfCPU is the user and system time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendsCPU is the user and system time the PostgreSQL backends of pool's database have
// used, read from /proc (-1 when the server's processes are not visible here).
func backendsCPU(ctx context.Context, b *testing.B, pool *pgxpool.Pool) time.Duration {
	rows, err := pool.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var total time.Duration
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return -1
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		utime, _ := strconv.ParseInt(f[11], 10, 64) // fields 14 and 15 of stat, in clock ticks
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	}
	return total
}
