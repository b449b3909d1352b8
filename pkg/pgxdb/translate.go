package pgxdb

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/videotpl/platform/pkg/errs"
)

// PostgreSQL error codes (SQLSTATE) that Translate reads.
const (
	CodeUniqueViolation      = "23505"
	CodeForeignKeyViolation  = "23503"
	CodeCheckViolation       = "23514"
	CodeStringTooLong        = "22001" // string_data_right_truncation: longer than varchar(n)
	CodeInvalidText          = "22P02" // invalid_text_representation: "abc" for an integer, bad json
	CodeInvalidByteSequence  = "22021" // character_not_in_repertoire: a NUL or invalid UTF-8 in text
	CodeSerializationFailure = "40001"
	CodeDeadlockDetected     = "40P01"
	CodeQueryCanceled        = "57014" // statement_timeout, or a cancel request
)

// Errors is how one store reads database errors: what a missing row means, which error each
// named constraint stands for, and what a violation no entry names means. A store keeps one
// table and passes every database error through Translate with it.
type Errors struct {
	// NotFound is returned for pgx.ErrNoRows. Nil leaves pgx.ErrNoRows to the caller, for reads
	// where no row is an answer rather than a failure.
	NotFound error
	// Constraints maps constraint names to the errors callers see: domain sentinels, or an
	// invalid-input error naming the request field the constraint guards. Looked up first, for
	// every code.
	Constraints map[string]error
	// ForeignKey is the kind of a foreign-key violation not in Constraints: NotFound or Invalid
	// when the store writes references a caller gave, Conflict when the store deletes rows
	// others may refer to. Internal (the zero value) is read as Conflict, since such a violation
	// is always about the state of other rows, never a fault of ours.
	ForeignKey errs.Kind
	// Subject names the record in the details of violations no entry names ("division" gives
	// "division conflicts with an existing record"); "the record" when empty.
	Subject string
}

// Translate classifies err for the store's callers, using m:
//
//   - nil, errors already classified (*errs.Error) and context errors pass through unchanged;
//   - pgx.ErrNoRows becomes m.NotFound (when set);
//   - a constraint named in m.Constraints becomes its entry;
//   - 23505 unique is Conflict; 23503 foreign key is m.ForeignKey;
//   - 23514 check, 22001 string too long, 22P02 invalid text and 22021 NUL or invalid UTF-8 are
//     Invalid (the request carried a value the column cannot hold);
//   - 40001 serialization failure and 40P01 deadlock are Unavailable: the transaction collided
//     with a concurrent one and the same request, retried, can succeed;
//   - 57014 query canceled is Unavailable (a statement timeout or an operator's cancel);
//   - anything else is returned as it is: an Internal error, logged and never shown.
//
// The database's own message stays in the chain (errors.As finds the *pgconn.PgError) for logs;
// the details callers see are written here, so no column value or SQL reaches a client.
func Translate(err error, m Errors) error {
	if err == nil {
		return nil
	}
	if _, classified := errs.As(err); classified {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		if m.NotFound != nil {
			return m.NotFound
		}
		return err
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	if mapped, ok := m.Constraints[pgErr.ConstraintName]; ok && pgErr.ConstraintName != "" {
		return mapped
	}
	subject := m.Subject
	if subject == "" {
		subject = "the record"
	}
	switch pgErr.Code {
	case CodeUniqueViolation:
		return errs.Wrap(errs.Conflict, subject+" conflicts with an existing record", err)
	case CodeForeignKeyViolation:
		kind := m.ForeignKey
		if kind == errs.Internal {
			kind = errs.Conflict
		}
		detail := subject + " refers to a record that does not exist here"
		if kind == errs.Conflict {
			detail = subject + " is tied to other records the change would break"
		}
		return errs.Wrap(kind, detail, err)
	case CodeCheckViolation:
		return errs.Wrap(errs.Invalid, subject+" holds a value outside what is allowed", err)
	case CodeStringTooLong:
		return errs.Wrap(errs.Invalid, "a text value is longer than its field allows", err)
	case CodeInvalidText, CodeInvalidByteSequence:
		return errs.Wrap(errs.Invalid, "a value is not valid for its field: text may not hold NUL characters or invalid UTF-8", err)
	case CodeSerializationFailure, CodeDeadlockDetected:
		return errs.Wrap(errs.Unavailable, "the change collided with a concurrent one; retry the request", err)
	case CodeQueryCanceled:
		return errs.Wrap(errs.Unavailable, "the database stopped the query before it finished; retry the request", err)
	}
	return err
}
