package app

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// Hub relays live progress to the SSE streams of this instance. Every instance has its own
// queue on the progress fanout exchange, so every instance hears every tick and can serve
// any client; state changes arrive as notifications from the database (whichever instance
// consumed the event), after which a stream reloads the job.
//
// Publishing never waits for a stream: each has a buffer of SubscriptionBuffer ticks. A
// stream that falls further behind (its client does not read) is not fed with gaps: it is
// told to end (Lagged), so that its client reconnects with Last-Event-ID and starts again
// from the job's current state.
type Hub struct {
	mu   sync.Mutex
	subs map[uuid.UUID]map[*Subscription]struct{}
	obs  RelayObserver
}

// RelayObserver counts what the relay does: the frames streams send, by event (state,
// progress, completed, failed, cancelled), and the streams ended for falling behind.
type RelayObserver interface {
	FrameSent(event string)
	StreamLagged()
}

type noRelayObserver struct{}

func (noRelayObserver) FrameSent(string) {}
func (noRelayObserver) StreamLagged()    {}

// NewHub returns an empty hub reporting to obs (nil: nowhere).
func NewHub(obs RelayObserver) *Hub {
	if obs == nil {
		obs = noRelayObserver{}
	}
	return &Hub{subs: map[uuid.UUID]map[*Subscription]struct{}{}, obs: obs}
}

// SubscriptionBuffer is how many ticks a stream may lag behind before it is ended.
const SubscriptionBuffer = 256

// Tick is a progress tick as the hub hands it to every stream of its job: the frame is
// encoded once, by the first stream that sends it, and shared by the others.
type Tick struct {
	domain.Progress
	once  sync.Once
	frame []byte
}

// Frame returns encode(t.Progress), computed once for all the streams of the tick.
func (t *Tick) Frame(encode func(domain.Progress) []byte) []byte {
	t.once.Do(func() { t.frame = encode(t.Progress) })
	return t.frame
}

// Subscription is one stream's view of a job.
type Subscription struct {
	hub   *Hub
	job   uuid.UUID
	ticks chan *Tick
	// changed is signalled (capacity 1) when the job's state may have changed.
	changed chan struct{}
	// lagged is closed when the stream fell SubscriptionBuffer ticks behind; it gets no
	// more ticks (guarded by the hub's mutex).
	lagged chan struct{}
}

// Sent records that the stream sent a frame of event.
func (s *Subscription) Sent(event string) { s.hub.obs.FrameSent(event) }

// Ticks delivers the job's progress ticks, in the order they were heard.
func (s *Subscription) Ticks() <-chan *Tick { return s.ticks }

// Changed is signalled when the job's state may have changed: reload it.
func (s *Subscription) Changed() <-chan struct{} { return s.changed }

// Lagged is closed when the stream fell too far behind to be relayed without gaps: end it.
func (s *Subscription) Lagged() <-chan struct{} { return s.lagged }

// Close ends the subscription.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.subs[s.job]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(h.subs, s.job)
		}
	}
}

// Subscribe starts a subscription to a job.
func (h *Hub) Subscribe(job uuid.UUID) *Subscription {
	s := &Subscription{hub: h, job: job, ticks: make(chan *Tick, SubscriptionBuffer), changed: make(chan struct{}, 1),
		lagged: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[job] == nil {
		h.subs[job] = map[*Subscription]struct{}{}
	}
	h.subs[job][s] = struct{}{}
	return s
}

// Publish hands a tick to every subscriber of its job without blocking; a subscriber whose
// buffer is full is told to end instead.
func (h *Hub) Publish(p domain.Progress) {
	t := &Tick{Progress: p}
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.subs[p.JobID]
	for s := range set {
		select {
		case s.ticks <- t:
		default:
			delete(set, s)
			close(s.lagged)
			h.obs.StreamLagged()
		}
	}
	if len(set) == 0 {
		delete(h.subs, p.JobID)
	}
}

// JobsChanged signals the subscribers of the jobs that their state may have changed.
func (h *Hub) JobsChanged(ids []uuid.UUID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		for s := range h.subs[id] {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		}
	}
}

// AllChanged signals every subscriber (after notifications may have been missed).
func (h *Hub) AllChanged() {
	h.mu.Lock()
	ids := make([]uuid.UUID, 0, len(h.subs))
	for id := range h.subs {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	h.JobsChanged(ids)
}

// unknownJobPatience is how long a tick of a job not known yet is kept: progress travels
// on its own exchange and may overtake the job's first event.
const unknownJobPatience = 30 * time.Second

// ProgressWriter coalesces progress ticks: it keeps the latest tick of each job and
// persists them every interval, so a job's progress is written at most 1/interval times a
// second whatever the tick rate, and the latest tick is always written (also on shutdown).
type ProgressWriter struct {
	store    domain.ProgressStore
	interval time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	pending map[uuid.UUID]domain.Progress
	// waiting holds, per job not known yet, when its first tick was kept.
	waiting map[uuid.UUID]time.Time
}

// NewProgressWriter returns a writer flushing every interval.
func NewProgressWriter(store domain.ProgressStore, interval time.Duration, log *slog.Logger) *ProgressWriter {
	return &ProgressWriter{store: store, interval: interval, log: log, pending: map[uuid.UUID]domain.Progress{},
		waiting: map[uuid.UUID]time.Time{}}
}

// Offer keeps p if it is the latest tick of its job.
func (w *ProgressWriter) Offer(p domain.Progress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.pending[p.JobID]; ok && !p.Newer(cur) {
		return
	}
	w.pending[p.JobID] = p
}

// Flush persists the pending ticks.
func (w *ProgressWriter) Flush(ctx context.Context) error {
	w.mu.Lock()
	if len(w.pending) == 0 {
		w.mu.Unlock()
		return nil
	}
	batch := make([]domain.Progress, 0, len(w.pending))
	for _, p := range w.pending {
		batch = append(batch, p)
	}
	w.pending = map[uuid.UUID]domain.Progress{}
	w.mu.Unlock()
	slices.SortFunc(batch, func(a, b domain.Progress) int { return compareUUID(a.JobID, b.JobID) })
	unknown, err := w.store.SaveProgress(ctx, batch)
	if err != nil {
		// Put them back unless a newer tick arrived meanwhile.
		for _, p := range batch {
			w.Offer(p)
		}
		return err
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	stillUnknown := make(map[uuid.UUID]bool, len(unknown))
	for _, p := range unknown {
		stillUnknown[p.JobID] = true
	}
	for _, p := range batch {
		if !stillUnknown[p.JobID] {
			delete(w.waiting, p.JobID)
		}
	}
	for _, p := range unknown {
		since, ok := w.waiting[p.JobID]
		if !ok {
			since = now
			w.waiting[p.JobID] = since
		}
		if now.Sub(since) > unknownJobPatience {
			delete(w.waiting, p.JobID)
			continue
		}
		if cur, ok := w.pending[p.JobID]; !ok || p.Newer(cur) {
			w.pending[p.JobID] = p
		}
	}
	return nil
}

// Run flushes every interval until ctx ends, then flushes once more.
func (w *ProgressWriter) Run(ctx context.Context) error {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			return w.Flush(fctx)
		case <-t.C:
			if err := w.Flush(ctx); err != nil && ctx.Err() == nil {
				w.log.WarnContext(ctx, "persisting progress failed; retrying", "error", err)
			}
		}
	}
}
