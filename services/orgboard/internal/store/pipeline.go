package store

import (
	"context"
	"errors"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

var errPipelineOutsideTx = errors.New("store: a pipeline runs inside a transaction (InTx)")

// Pipeline implements domain.Store: the writes fn makes, the generated queries' and the
// outbox's, are deferred (pgxdb.Deferred) and sent on the transaction in one round trip, with
// its next statement or with its COMMIT.
func (s *Store) Pipeline(ctx context.Context, fn func(domain.Store) error) error {
	if s.tx == nil {
		return errPipelineOutsideTx
	}
	d := pgxdb.Defer(s.tx)
	if err := fn(s.in(d)); err != nil {
		return err
	}
	return d.Close(ctx)
}
