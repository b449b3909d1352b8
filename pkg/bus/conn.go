package bus

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/videotpl/platform/pkg/errs"
)

// BrokerStatus is the state of a connection to the broker.
type BrokerStatus struct {
	// Connected is whether the connection is up and consuming.
	Connected bool
	// Since is when the connection last went up or down (when it was created, if it never
	// went up).
	Since time.Time
	// Err is why it went down (nil while connected or before the first attempt).
	Err error
}

// ConnState follows one connection of the bus to the broker (a consumer's), for readiness
// and monitoring. It starts disconnected. Safe for concurrent use.
type ConnState struct {
	mu     sync.Mutex
	status BrokerStatus
}

func newConnState() *ConnState {
	return &ConnState{status: BrokerStatus{Since: time.Now()}}
}

// Status is the current state.
func (s *ConnState) Status() BrokerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

func (s *ConnState) up() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.status.Connected {
		s.status = BrokerStatus{Connected: true, Since: time.Now()}
	}
}

// down records err; Since stays the time of the first failure of an outage.
func (s *ConnState) down(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status.Connected {
		s.status = BrokerStatus{Since: time.Now()}
	}
	s.status.Err = err
}

// Check is a readiness check: nil while connected, and while disconnected for no longer
// than grace; otherwise an Unavailable error naming the broker and since when it is
// unreachable. A negative grace never fails.
func (s *ConnState) Check(grace time.Duration) func(context.Context) error {
	return func(context.Context) error {
		st := s.Status()
		if st.Connected || grace < 0 || time.Since(st.Since) <= grace {
			return nil
		}
		detail := fmt.Sprintf("the message broker is unreachable since %s (%s ago)",
			st.Since.UTC().Format(time.RFC3339), time.Since(st.Since).Round(time.Second))
		return errs.Wrap(errs.Unavailable, detail, st.Err)
	}
}

// Register exports the state on reg as bus_connected{connection} (1 connected, 0 not) and
// bus_connection_state_since_seconds{connection} (Unix time of the last change).
func (s *ConnState) Register(reg prometheus.Registerer, connection string) error {
	labels := prometheus.Labels{"connection": connection}
	connected := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bus_connected", ConstLabels: labels,
		Help: "Whether the connection to the message broker is up (1) or down (0)."}, func() float64 {
		if s.Status().Connected {
			return 1
		}
		return 0
	})
	since := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bus_connection_state_since_seconds", ConstLabels: labels,
		Help: "Unix time when the connection to the message broker last went up or down."}, func() float64 {
		return float64(s.Status().Since.UnixNano()) / 1e9
	})
	for _, c := range []prometheus.Collector{connected, since} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
