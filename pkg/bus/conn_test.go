package bus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/errs"
)

func TestABatchConsumerReportsTheBrokerLossAndItsRecovery(t *testing.T) {
	t.Parallel()
	cfg := bustest.Config(t)
	proxy := bustest.NewProxy(t)
	cfg.AMQPURL = proxy.URL()
	pool := effectsDB(t)
	a := newEffectApplier(pool, cfg.Service)
	c := runBatchConsumer(t, cfg, bus.BatchConfig{Size: 1}, a, nil, testLogger(t))
	conn := c.Connection()
	reg := prometheus.NewRegistry()
	if err := conn.Register(reg, "events"); err != nil {
		t.Fatal(err)
	}
	connected := func() float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "bus_connected" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatal("bus_connected not exported")
		return -1
	}
	ready, readyAfterGrace := conn.Check(0), conn.Check(time.Hour)

	if st := conn.Status(); !st.Connected || connected() != 1 {
		t.Fatalf("status %+v, bus_connected %v while consuming", st, connected())
	}
	if err := ready(context.Background()); err != nil {
		t.Fatalf("not ready while consuming: %v", err)
	}

	cutAt := time.Now()
	proxy.Cut()
	eventually(t, 10*time.Second, "the loss noticed", func() bool { return !conn.Status().Connected })
	st := conn.Status()
	if st.Since.Before(cutAt) || st.Err == nil || connected() != 0 {
		t.Errorf("status %+v, bus_connected %v after the loss, want down since the cut with its cause", st, connected())
	}
	err := ready(context.Background())
	if errs.KindOf(err) != errs.Unavailable || !strings.Contains(err.Error(), "message broker is unreachable since") {
		t.Errorf("readiness after the loss: %v, want unavailable naming the broker", err)
	}
	if err := readyAfterGrace(context.Background()); err != nil {
		t.Errorf("not ready within the grace period: %v", err)
	}
	if n := testutil.CollectAndCount(reg, "bus_connection_state_since_seconds"); n != 1 {
		t.Errorf("%d since gauges", n)
	}

	proxy.Restore()
	eventually(t, 15*time.Second, "the recovery noticed", func() bool { return conn.Status().Connected })
	if err := ready(context.Background()); err != nil || connected() != 1 {
		t.Errorf("after the recovery: readiness %v, bus_connected %v", err, connected())
	}
	// It consumes again.
	bustest.Publish(t, cfg, envelope(t, okEvent, map[string]any{"n": 1}))
	eventually(t, 10*time.Second, "the event applied", func() bool { return a.committed.Load() == 1 })
}

func TestWatchBrokerReportsTheBrokerLossAndItsRecovery(t *testing.T) {
	t.Parallel()
	proxy := bustest.NewProxy(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn := bus.WatchBroker(ctx, proxy.URL())
	eventually(t, 5*time.Second, "connected", func() bool { return conn.Status().Connected })

	proxy.Cut()
	eventually(t, 10*time.Second, "the loss noticed", func() bool { return !conn.Status().Connected })
	if err := conn.Check(0)(ctx); errs.KindOf(err) != errs.Unavailable || conn.Status().Err == nil {
		t.Errorf("readiness after the loss: %v (status %+v), want unavailable with the cause", err, conn.Status())
	}
	proxy.Restore()
	eventually(t, 15*time.Second, "the recovery noticed", func() bool { return conn.Status().Connected })
}
