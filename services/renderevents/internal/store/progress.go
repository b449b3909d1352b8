package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	db "github.com/videotpl/platform/gen/db/renderevents"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

// SaveProgress implements domain.ProgressStore: one pipelined batch, in job order. It returns
// the ticks of jobs not known yet.
func (s *Store) SaveProgress(ctx context.Context, ticks []domain.Progress) ([]domain.Progress, error) {
	params := make([]db.SaveJobProgressParams, 0, len(ticks))
	for _, p := range ticks {
		step, at := p.Step, p.EventTime
		params = append(params, db.SaveJobProgressParams{JobID: p.JobID, Step: &step, Progress: int32(p.Progress),
			CurrentFrame: i32(p.CurrentFrame), TotalFrames: i32(p.TotalFrames), EtaSeconds: i32(p.EtaSeconds), ProgressAt: &at})
	}
	var (
		first   error
		unknown []domain.Progress
	)
	s.q.SaveJobProgress(ctx, params).QueryRow(func(i int, r db.SaveJobProgressRow, err error) {
		switch {
		case err != nil:
			if first == nil {
				first = err
			}
		case r.Updated == 0 && r.StateRank == 0:
			unknown = append(unknown, ticks[i])
		}
	})
	if first != nil {
		return nil, fmt.Errorf("save progress: %w", first)
	}
	return unknown, nil
}

// ListenJobs delivers the job ids of JobsChannel notifications to onChange until ctx
// ends, reconnecting after failures. onListening is called each time the LISTEN is in
// place (notifications sent before are lost: resynchronise).
func (s *Store) ListenJobs(ctx context.Context, log *slog.Logger, onChange func([]uuid.UUID), onListening func()) error {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listen(ctx, onChange, func() {
			onListening()
			backoff = 100 * time.Millisecond
		})
		if ctx.Err() != nil {
			return nil //nolint:nilerr // shutting down: the interruption is expected
		}
		log.WarnContext(ctx, "job notifications interrupted; listening again", "error", err, "backoff", backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

func (s *Store) listen(ctx context.Context, onChange func([]uuid.UUID), listening func()) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection ends its life here: LISTEN state must not go back to the pool.
	conn := pc.Hijack()
	defer conn.Close(context.Background()) //nolint:errcheck
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{JobsChannel}.Sanitize()); err != nil {
		return err
	}
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		var ids []uuid.UUID
		for _, part := range strings.Split(n.Payload, ",") {
			if id, err := uuid.Parse(part); err == nil {
				ids = append(ids, id)
			}
		}
		onChange(ids)
	}
}
