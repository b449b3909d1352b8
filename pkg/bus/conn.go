package bus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	amqp "github.com/rabbitmq/amqp091-go"

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

// ConnState follows one connection of the bus to the broker (a batch consumer's, or
// WatchBroker's), for readiness and monitoring. It starts disconnected. Safe for concurrent use.
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

// WatchBroker follows the broker at url through a connection of its own (heartbeats every
// 10s), dialled again after a loss with a backoff of up to 5s, until ctx ends: for a
// service whose consumer does not report its connection (watermill-amqp's subscriber
// reconnects on its own and exposes no race-free state).
func WatchBroker(ctx context.Context, url string) *ConnState {
	s := newConnState()
	go func() {
		backoff := 100 * time.Millisecond
		for ctx.Err() == nil {
			conn, err := Dial(url)
			if err == nil {
				s.up()
				backoff = 100 * time.Millisecond
				closed := conn.NotifyClose(make(chan *amqp.Error, 1))
				select {
				case <-ctx.Done():
					_ = conn.Close()
					return
				case e := <-closed:
					err = fmt.Errorf("connection to the broker lost: %w", e)
					if e == nil {
						err = errors.New("connection to the broker closed")
					}
				}
			}
			s.down(err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, 5*time.Second)
		}
	}()
	return s
}

// sleep waits for d and reports true, or reports false as soon as ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
