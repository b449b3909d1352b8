package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

var (
	errPipelineOutsideTx = errors.New("store: a pipeline runs inside a transaction (InTx)")
	errPipelineRead      = errors.New("store: a pipeline only writes")
)

// Pipeline implements domain.Store: the writes fn makes, the generated queries' and the
// outbox's, are queued on a pgx.Batch and sent on the transaction in one round trip.
func (s *Store) Pipeline(ctx context.Context, fn func(domain.Store) error) error {
	if s.tx == nil {
		return errPipelineOutsideTx
	}
	queued := &queuedWrites{Tx: s.tx}
	if err := fn(&Store{pool: s.pool, q: orgboarddb.New(queued), tx: queued}); err != nil {
		return err
	}
	if queued.batch.Len() == 0 {
		return nil
	}
	return s.tx.SendBatch(ctx, &queued.batch).Close()
}

// queuedWrites is the transaction as a pipeline's writes see it: Exec queues the statement and
// reports success (its command tag is empty); reads are refused.
type queuedWrites struct {
	pgx.Tx
	batch pgx.Batch
}

func (q *queuedWrites) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.batch.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (q *queuedWrites) Query(context.Context, string, ...any) (pgx.Rows, error) {
	return nil, errPipelineRead
}

func (q *queuedWrites) QueryRow(context.Context, string, ...any) pgx.Row {
	return errRow{errPipelineRead}
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
