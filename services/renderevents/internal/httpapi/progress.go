package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/services/renderevents/internal/app"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// progressData is the data of an `event: progress` frame.
type progressData struct {
	JobID        string  `json:"job_id"`
	Step         string  `json:"step"`
	Progress     int     `json:"progress"`
	CurrentFrame *int    `json:"current_frame"`
	TotalFrames  *int    `json:"total_frames"`
	EtaSeconds   *int    `json:"eta_seconds"`
	Message      *string `json:"message"`
	EventTime    string  `json:"event_time"`
}

// sseFrame encodes one frame: its id, its event and its data as one line of JSON.
func sseFrame(id int64, event string, data any) ([]byte, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	frame := make([]byte, 0, len(b)+len(event)+40)
	frame = append(frame, "id: "...)
	frame = strconv.AppendInt(frame, id, 10)
	frame = append(frame, "\nevent: "...)
	frame = append(frame, event...)
	frame = append(frame, "\ndata: "...)
	frame = append(frame, b...)
	return append(frame, "\n\n"...), nil
}

// progressFrameOf is the `event: progress` frame of a tick, whose id is the tick's event
// time. The hub has it encoded once per tick, for every stream of the job.
func progressFrameOf(p domain.Progress) []byte {
	// Strings, integers and pointers to them always encode: there is no error to handle.
	frame, _ := sseFrame(p.EventTime.UnixMicro(), "progress", progressData{JobID: p.JobID.String(), Step: p.Step,
		Progress: p.Progress, CurrentFrame: p.CurrentFrame, TotalFrames: p.TotalFrames, EtaSeconds: p.EtaSeconds,
		Message: p.Message, EventTime: p.EventTime.UTC().Format(time.RFC3339Nano)})
	return frame
}

// StreamRenderJobProgress implements rendereventsserver.StrictServerInterface: a server-sent event stream
// of the job. Frame ids are the event_time of what the frame tells, in microseconds since
// the Unix epoch, so every instance numbers a job's frames alike and a client may
// reconnect to any of them with Last-Event-ID.
func (h *Handler) StreamRenderJobProgress(ctx context.Context, req rendereventsserver.StreamRenderJobProgressRequestObject) (rendereventsserver.StreamRenderJobProgressResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := h.queries.GetJob(ctx, actor, req.JobId); err != nil {
		return nil, err // 404 (or 401/403) before the stream starts
	}
	sub := h.hub.Subscribe(req.JobId)
	// Read again after subscribing, so that a change in between is not missed.
	job, err := h.queries.GetJob(ctx, actor, req.JobId)
	if err != nil {
		sub.Close()
		return nil, err
	}
	var last int64
	if req.Params.LastEventID != nil {
		last, _ = strconv.ParseInt(strings.TrimSpace(*req.Params.LastEventID), 10, 64) // a malformed id counts as none
	}
	return &progressStream{ctx: ctx, actor: actor, h: h, sub: sub, job: job, last: last}, nil
}

type progressStream struct {
	ctx   context.Context
	actor domain.Actor
	h     *Handler
	sub   *app.Subscription
	job   *domain.Job
	last  int64 // id of the last frame sent (or the client's Last-Event-ID)
}

// VisitStreamRenderJobProgressResponse writes the stream until the job ends or the client
// goes away.
func (s *progressStream) VisitStreamRenderJobProgressResponse(w http.ResponseWriter) error {
	defer s.sub.Close()
	flusher, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("streaming is not supported by the response writer")
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer
	w.WriteHeader(http.StatusOK)

	write := func(id int64, event string, frame []byte) error {
		if _, err := w.Write(frame); err != nil {
			return err
		}
		flusher.Flush()
		s.last = id
		s.sub.Sent(event)
		return nil
	}
	send := func(id int64, event string, data any) error {
		frame, err := sseFrame(id, event, data)
		if err != nil {
			return err
		}
		return write(id, event, frame)
	}
	// next is the id of a frame telling something that happened at t: never below the
	// last id sent, so ids increase.
	next := func(t time.Time) int64 { return max(t.UnixMicro(), s.last+1) }

	if err := send(max(s.job.UpdatedAt.UnixMicro(), s.last), "state", jobToAPI(s.job)); err != nil {
		return nil
	}
	if s.job.State.Terminal() {
		return s.terminal(send, next)
	}
	keepAlive := time.NewTicker(s.h.keepAlive)
	defer keepAlive.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return nil
		case <-s.h.ending:
			return nil
		case t := <-s.sub.Ticks():
			id := t.EventTime.UnixMicro()
			if id <= s.last {
				continue // older than what the client has seen
			}
			if err := write(id, "progress", t.Frame(progressFrameOf)); err != nil {
				return nil
			}
		case <-s.sub.Lagged():
			return nil // the client reconnects with Last-Event-ID and resumes from the current state
		case <-s.sub.Changed():
			job, err := s.h.queries.GetJob(s.ctx, s.actor, s.job.ID)
			if err != nil {
				return nil
			}
			prev := s.job.State
			s.job = job
			switch {
			case job.State.Terminal():
				return s.terminal(send, next)
			case job.State != prev:
				if err := send(next(job.UpdatedAt), "state", jobToAPI(job)); err != nil {
					return nil
				}
			}
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
		}
	}
}

// terminal sends the final frame (event completed, failed or cancelled); the stream ends.
func (s *progressStream) terminal(send func(int64, string, any) error, next func(time.Time) int64) error {
	at := s.job.UpdatedAt
	if s.job.FinishedAt != nil {
		at = *s.job.FinishedAt
	}
	_ = send(next(at), string(s.job.State), jobToAPI(s.job))
	return nil
}
