package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	orgboarddb "github.com/videotpl/platform/gen/db/orgboard"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// ReadBoard sends the board's reads (the caller's blocks, the team with the caller's standing,
// the items) as one batch: one round trip instead of three. They are the generated queries'
// statements with their arguments (queued from a recording of each call); the items, hundreds
// of rows, are decoded by scanBoardItems.
func (s *Store) ReadBoard(ctx context.Context, q domain.BoardQuery) (domain.BoardRead, error) {
	var r domain.BoardRead
	b := &pgx.Batch{}
	if q.Blocks {
		queueBlocks(ctx, b, q.User, q.Tenant, &r.Blocks)
	}
	queue(ctx, b, func(ctx context.Context, g *orgboarddb.Queries) error {
		_, err := g.GetTeamWithStanding(ctx, orgboarddb.GetTeamWithStandingParams{ID: q.Team, UserID: q.User})
		return err
	}).QueryRow(func(row pgx.Row) error {
		// The generated query scans the batch's row.
		t, err := orgboarddb.New(rowOf{row}).GetTeamWithStanding(ctx, orgboarddb.GetTeamWithStandingParams{})
		if errors.Is(err, pgx.ErrNoRows) {
			r.TeamErr = translate(err, "team")
			return nil
		}
		r.Team, r.Standing = team(t.Team), standingOf(t.Role, t.TeamLead, t.LeadsSomeTeam)
		return err
	})
	queue(ctx, b, func(ctx context.Context, g *orgboarddb.Queries) error {
		_, err := g.ListBoardItems(ctx, q.Team)
		return err
	}).Query(func(rows pgx.Rows) (err error) {
		r.Items, r.Release, err = scanBoardItems(rows)
		return err
	})
	if err := s.sendBatch(ctx, b); err != nil {
		return domain.BoardRead{}, err
	}
	return r, nil
}

// queueBlocks queues on b the caller's blocks (user's bans, tenant's suspensions), read into
// dst.
func queueBlocks(ctx context.Context, b *pgx.Batch, user, tenant uuid.UUID, dst *[]domain.Block) {
	queue(ctx, b, func(ctx context.Context, g *orgboarddb.Queries) error {
		_, err := g.ListCallerBlocks(ctx, orgboarddb.ListCallerBlocksParams{UserID: user, TenantID: tenant})
		return err
	}).Query(func(rows pgx.Rows) (err error) {
		*dst, err = scanBlocks(rows)
		return err
	})
}

// sendBatch runs b on the Store's transaction, or on a connection of the pool.
func (s *Store) sendBatch(ctx context.Context, b *pgx.Batch) error {
	if s.tx != nil {
		return s.tx.SendBatch(ctx, b).Close()
	}
	return s.pool.SendBatch(ctx, b).Close()
}

// queue queues on b the statement and arguments the generated query that call runs sends.
func queue(ctx context.Context, b *pgx.Batch, call func(context.Context, *orgboarddb.Queries) error) *pgx.QueuedQuery {
	var rec recorder
	_ = call(ctx, orgboarddb.New(&rec))
	return b.Queue(rec.sql, rec.args...)
}

// recorder is a generated query's connection that only notes what the query would send.
type recorder struct {
	sql  string
	args []any
}

var errRecorded = errors.New("store: recorded, not sent")

func (r *recorder) note(sql string, args []any) { r.sql, r.args = sql, args }

func (r *recorder) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	r.note(sql, args)
	return pgconn.CommandTag{}, errRecorded
}

func (r *recorder) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	r.note(sql, args)
	return nil, errRecorded
}

func (r *recorder) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	r.note(sql, args)
	return errRow{}
}

func (r *recorder) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errRecorded
}

// rowOf is a DBTX whose QueryRow answers with a row already read (from a batch), so that the
// generated query that sent it scans it too; it sends nothing.
type rowOf struct{ row pgx.Row }

func (r rowOf) QueryRow(context.Context, string, ...any) pgx.Row { return r.row }

func (rowOf) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, errRecorded
}

func (rowOf) Query(context.Context, string, ...any) (pgx.Rows, error) { return nil, errRecorded }

func (rowOf) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errRecorded
}

type errRow struct{}

func (errRow) Scan(...any) error { return errRecorded }

// scanBlocks reads ListCallerBlocks' rows.
func scanBlocks(rows pgx.Rows) ([]domain.Block, error) {
	var out []domain.Block
	for rows.Next() {
		var r orgboarddb.ListCallerBlocksRow
		if err := rows.Scan(&r.Cause, &r.Reason, &r.Since, &r.Until); err != nil {
			return nil, err
		}
		out = append(out, blockOf(r))
	}
	return out, rows.Err()
}

// The size of the last board read, in items and in bytes of text: the next one's slices are
// allocated once at about its size instead of regrown (up to a bound, so that one huge board
// does not make every later one allocate as much).
var boardItemsHint, boardTextHint atomic.Int64

const (
	maxItemsHint = 1024
	maxTextHint  = 256 << 10
)

// boardColumns are ListBoardItems' columns, in order, as scanBoardItems decodes them.
var boardColumns = [...]uint32{
	pgtype.UUIDOID, pgtype.UUIDOID, pgtype.UUIDOID, // id, organization_id, team_id
	pgtype.TextOID, pgtype.TextOID, pgtype.TextOID, pgtype.TextOID, // type, title, description, status
	pgtype.UUIDOID, pgtype.UUIDOID, pgtype.UUIDOID, pgtype.UUIDOID, // assignee_user_id, assignee_seat_id, parent_id, created_by
	pgtype.TimestamptzOID, pgtype.TimestamptzOID, // created_at, updated_at
}

// boardItemsPool holds the items' arrays of boards already written (*[]domain.Task): about
// half of a board's garbage (50 KB of 250 items) is not made again for each board.
// boardEndsPool holds the ends arrays of boards already read (*[]int).
var boardItemsPool, boardEndsPool sync.Pool

// boardItems returns an empty items array of capacity n or more, and the release that hands it
// back (once; an array grown beyond the bound of the hint is dropped).
func boardItems(n int) (*[]domain.Task, func()) {
	p := pooled[domain.Task](&boardItemsPool, n)
	released := false
	return p, func() {
		if !released && cap(*p) <= maxItemsHint+8 {
			boardItemsPool.Put(p)
		}
		released = true
	}
}

// releaseEnds hands an ends array back, unless it grew beyond the bound of the hint.
func releaseEnds(p *[]int) {
	if cap(*p) <= 2*(maxItemsHint+8) {
		boardEndsPool.Put(p)
	}
}

// pooled returns an empty array of capacity n or more: pool's (of *[]T) when it holds one.
func pooled[T any](pool *sync.Pool, n int) *[]T {
	p, _ := pool.Get().(*[]T)
	if p == nil || cap(*p) < n {
		s := make([]T, 0, n)
		p = &s
	}
	*p = (*p)[:0]
	return p
}

// scanBoardItems reads ListBoardItems' rows into tasks, and returns the release that hands
// their array back for reuse (nil when there is nothing to hand back). When the ids and times
// come in binary (as pgx asks for them), each row's raw values are decoded here: pgx's scan
// plans, the generated row type and its regrown slice, and a string per text value were most
// of a board's CPU and garbage. The texts of all rows are kept in one string. Anything else
// goes through rows.Scan as the generated query does.
func scanBoardItems(rows pgx.Rows) ([]domain.Task, func(), error) {
	if !binaryBoardColumns(rows.FieldDescriptions()) {
		items, err := scanTasks(rows)
		return items, nil, err
	}
	n := min(boardItemsHint.Load(), maxItemsHint) + 8
	buf, release := boardItems(int(n))
	items := *buf
	// The texts go to a strings.Builder, whose String is the bytes written, not a copy.
	var text strings.Builder
	text.Grow(int(min(boardTextHint.Load(), maxTextHint)) + 1024)
	// ends holds, per item, where its title and its description end in text; it is only used
	// here, so the next board reuses it.
	endsBuf := pooled[int](&boardEndsPool, int(2*n))
	defer releaseEnds(endsBuf)
	ends := *endsBuf
	for rows.Next() {
		v := rows.RawValues()
		var t domain.Task
		if err := decodeBoardItem(v, &t); err != nil {
			return nil, nil, err
		}
		text.Write(v[4])
		ends = append(ends, text.Len())
		text.Write(v[5])
		ends = append(ends, text.Len())
		items = append(items, t)
	}
	*buf, *endsBuf = items, ends // the arrays grown by append, if they were
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	all, start := text.String(), 0
	for i := range items {
		items[i].Title, items[i].Description = all[start:ends[2*i]], all[ends[2*i]:ends[2*i+1]]
		start = ends[2*i+1]
	}
	boardItemsHint.Store(int64(len(items)))
	boardTextHint.Store(int64(len(all)))
	return items, release, nil
}

func binaryBoardColumns(fields []pgconn.FieldDescription) bool {
	if len(fields) != len(boardColumns) {
		return false
	}
	for i, f := range fields {
		// A text value's bytes are the same in either format.
		if f.DataTypeOID != boardColumns[i] || (f.DataTypeOID != pgtype.TextOID && f.Format != pgtype.BinaryFormatCode) {
			return false
		}
	}
	return true
}

// decodeBoardItem decodes the binary values of one ListBoardItems row, all but the texts.
func decodeBoardItem(v [][]byte, t *domain.Task) error {
	if len(v) != len(boardColumns) {
		return fmt.Errorf("board item: %d values, want %d", len(v), len(boardColumns))
	}
	ids := [...]struct {
		col int
		dst *uuid.UUID
	}{{0, &t.ID}, {1, &t.OrganizationID}, {2, &t.TeamID}, {10, &t.CreatedBy}}
	var err error
	for _, id := range ids {
		if err = decodeUUID(v[id.col], id.dst); err != nil {
			return err
		}
	}
	if v[3] == nil || v[4] == nil || v[5] == nil || v[6] == nil {
		return errors.New("board item: NULL text")
	}
	t.Type, t.Status = taskType(v[3]), status(v[6])
	switch {
	case v[7] != nil:
		t.Assignee = &domain.Assignee{Kind: domain.AssigneeUser}
		err = decodeUUID(v[7], &t.Assignee.ID)
	case v[8] != nil:
		t.Assignee = &domain.Assignee{Kind: domain.AssigneeSeat}
		err = decodeUUID(v[8], &t.Assignee.ID)
	}
	if err != nil {
		return err
	}
	if v[9] != nil {
		t.ParentID = new(uuid.UUID)
		if err := decodeUUID(v[9], t.ParentID); err != nil {
			return err
		}
	}
	if t.CreatedAt, err = decodeTimestamptz(v[11]); err != nil {
		return err
	}
	t.UpdatedAt, err = decodeTimestamptz(v[12])
	return err
}

func decodeUUID(src []byte, dst *uuid.UUID) error {
	if len(src) != len(dst) {
		return fmt.Errorf("board item: a uuid of %d bytes", len(src))
	}
	copy(dst[:], src)
	return nil
}

// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01).
const unixToPostgresEpochMicros = 946684800 * 1000000

// decodeTimestamptz decodes a binary timestamptz as pgx does into a time.Time (time.Unix, in the
// local zone); infinities have no time.Time.
func decodeTimestamptz(src []byte) (time.Time, error) {
	if len(src) != 8 {
		return time.Time{}, fmt.Errorf("board item: a timestamptz of %d bytes", len(src))
	}
	us := int64(binary.BigEndian.Uint64(src))
	if us == math.MaxInt64 || us == math.MinInt64 {
		return time.Time{}, errors.New("board item: an infinite timestamptz")
	}
	return time.Unix(unixToPostgresEpochMicros/1000000+us/1000000,
		(unixToPostgresEpochMicros%1000000*1000)+(us%1000000*1000)), nil
}

// taskType and status return the constant string of a known value: no allocation per row.
func taskType(b []byte) domain.TaskType {
	switch string(b) {
	case "epic":
		return "epic"
	case "story":
		return "story"
	case "task":
		return "task"
	case "bug":
		return "bug"
	}
	return domain.TaskType(b)
}

func status(b []byte) domain.Status {
	for _, s := range domain.Columns {
		if string(b) == string(s) {
			return s
		}
	}
	return domain.Status(b)
}

// scanTasks reads rows of the work_items columns as the generated queries do.
func scanTasks(rows pgx.Rows) ([]domain.Task, error) {
	var out []domain.Task
	for rows.Next() {
		var i orgboarddb.WorkItem
		if err := rows.Scan(&i.ID, &i.OrganizationID, &i.TeamID, &i.Type, &i.Title, &i.Description, &i.Status,
			&i.AssigneeUserID, &i.AssigneeSeatID, &i.ParentID, &i.CreatedBy, &i.CreatedAt, &i.UpdatedAt); err != nil {
			return nil, err
		}
		out = append(out, task(i))
	}
	return out, rows.Err()
}
