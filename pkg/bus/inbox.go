package bus

import (
	"context"

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
