package app_test

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

type countingObserver struct{ lagged int }

func (*countingObserver) FrameSent(string) {}
func (o *countingObserver) StreamLagged()  { o.lagged++ }

func tick(job uuid.UUID, n int) domain.Progress {
	return domain.Progress{JobID: job, Step: "rendering", Progress: n % 101,
		EventTime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Millisecond)}
}

func TestATickIsEncodedOnceForAllTheStreamsOfItsJob(t *testing.T) {
	hub := app.NewHub(nil)
	job := uuid.New()
	subs := []*app.Subscription{hub.Subscribe(job), hub.Subscribe(job), hub.Subscribe(job)}
	other := hub.Subscribe(uuid.New())
	hub.Publish(tick(job, 7))

	encodes := 0
	encode := func(p domain.Progress) []byte {
		encodes++
		return []byte(strconv.Itoa(p.Progress))
	}
	for _, s := range subs {
		got := (<-s.Ticks()).Frame(encode)
		if !bytes.Equal(got, []byte("7")) {
			t.Fatalf("frame %q, want %q", got, "7")
		}
	}
	if encodes != 1 {
		t.Fatalf("the tick was encoded %d times for 3 streams, want once", encodes)
	}
	select {
	case <-other.Ticks():
		t.Fatal("a stream of another job got the tick")
	default:
	}
}

func TestAStreamThatFallsBehindIsEndedInsteadOfMissingTicks(t *testing.T) {
	obs := &countingObserver{}
	hub := app.NewHub(obs)
	job := uuid.New()
	slow, reader := hub.Subscribe(job), hub.Subscribe(job)
	for n := range app.SubscriptionBuffer + 2 {
		hub.Publish(tick(job, n))
		if got := <-reader.Ticks(); !got.EventTime.Equal(tick(job, n).EventTime) {
			t.Fatalf("the reading stream got the tick of %s, want %s", got.EventTime, tick(job, n).EventTime)
		}
	}

	select {
	case <-slow.Lagged():
	default:
		t.Fatal("the stream that stopped reading was not told to end")
	}
	select {
	case <-reader.Lagged():
		t.Fatal("the stream that kept reading was told to end")
	default:
	}
	// What the slow stream holds is every tick up to its buffer, in order: no gap.
	for n := range app.SubscriptionBuffer {
		if got := <-slow.Ticks(); !got.EventTime.Equal(tick(job, n).EventTime) {
			t.Fatalf("buffered tick %d has time %s, want %s", n, got.EventTime, tick(job, n).EventTime)
		}
	}
	select {
	case got := <-slow.Ticks():
		t.Fatalf("the ended stream got a tick after its buffer filled: %v", got.EventTime)
	default:
	}
	if obs.lagged != 1 {
		t.Fatalf("streams counted as lagged: %d, want 1", obs.lagged)
	}
	slow.Close() // the stream ends later: closing again is harmless
	reader.Close()
}
