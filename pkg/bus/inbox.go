package bus

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/pgxdb"
)

// HandleOnce runs fn in a transaction that also records (consumer, eventID) in the inbox,
// so the effect of fn and the record commit together. For an event already recorded it
// runs nothing and returns applied=false: a redelivered event changes nothing. A
// concurrent duplicate waits on the first one's row lock and then finds it recorded.
func HandleOnce(ctx context.Context, pool *pgxpool.Pool, consumer string, eventID uuid.UUID,
	fn func(ctx context.Context, tx pgx.Tx) error) (applied bool, err error) {
	err = pgxdb.WithTx(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx,
			`INSERT INTO bus_inbox (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			consumer, eventID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		applied = true
		return fn(ctx, tx)
	})
	if err != nil {
		return false, err
	}
	return applied, nil
}

// HandleBatchOnce records (consumer, id) for each of ids in tx, the caller's transaction, and
// returns the ids not recorded before, in the order of ids (an id given twice counts once).
// The caller applies those events in the same transaction, so their effects and records
// commit together and a redelivered batch changes nothing; one statement records the whole
// batch. Rows are written in id order, so concurrent batches cannot deadlock on them.
func HandleBatchOnce(ctx context.Context, tx pgx.Tx, consumer string, ids []uuid.UUID) (fresh []uuid.UUID, err error) {
	rows, err := tx.Query(ctx, `INSERT INTO bus_inbox (consumer, event_id)
		SELECT $1, id FROM unnest($2::uuid[]) AS id ORDER BY id
		ON CONFLICT DO NOTHING RETURNING event_id`, consumer, ids)
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	recorded, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	isNew := make(map[uuid.UUID]bool, len(recorded))
	for _, id := range recorded {
		isNew[id] = true
	}
	fresh = make([]uuid.UUID, 0, len(recorded))
	for _, id := range ids {
		if isNew[id] {
			fresh = append(fresh, id)
			delete(isNew, id)
		}
	}
	return fresh, nil
}

// Handled reports whether consumer has recorded eventID in the inbox.
func Handled(ctx context.Context, pool *pgxpool.Pool, consumer string, eventID uuid.UUID) (bool, error) {
	var ok bool
	err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bus_inbox WHERE consumer = $1 AND event_id = $2)`,
		consumer, eventID).Scan(&ok)
	return ok, err
}

// HandledCount is the number of events consumer has recorded in the inbox.
func HandledCount(ctx context.Context, pool *pgxpool.Pool, consumer string) (int, error) {
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM bus_inbox WHERE consumer = $1`, consumer).Scan(&n)
	return n, err
}
