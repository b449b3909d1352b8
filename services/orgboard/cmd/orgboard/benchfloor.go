package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// The floor's statements: the ones the service sends for a move (make bench-orgboard's
// pgbench script runs the same), with the outbox row going to bench_outbox as pgbench's does.
const (
	floorBlocks = `SELECT 'user_banned'::text AS cause, reason, event_time AS since, unblock_date AS until FROM user_bans WHERE user_id = $1 UNION ALL SELECT 'tenant_suspended'::text, reason, suspended_at, NULL::timestamptz FROM tenant_suspensions WHERE tenant_id = $2`
	floorLock   = `SELECT w.id, w.organization_id, w.team_id, w.type, w.title, w.description, w.status, w.assignee_user_id, w.assignee_seat_id, w.parent_id, w.created_by, w.created_at, w.updated_at, m.role, EXISTS (SELECT 1 FROM team_leads l WHERE l.team_id = w.team_id AND l.user_id = m.user_id) AS team_lead, EXISTS (SELECT 1 FROM team_leads l WHERE l.organization_id = m.organization_id AND l.user_id = m.user_id) AS leads_some_team FROM work_items w LEFT JOIN memberships m ON m.organization_id = w.organization_id AND m.user_id = $2 WHERE w.id = $1 FOR UPDATE OF w`
	floorUpdate = `UPDATE work_items SET status = $2, updated_at = $3 WHERE id = $1`
	floorAudit  = `INSERT INTO audit_entries (id, organization_id, actor_id, actor_kind, actor_name, action, scope_type, scope_id, target_type, target_id, before, after, at) VALUES ($1, $2, $3, 'user', NULL, 'task.moved', 'team', $4, 'work_item', $5, $6, $7, $8)`
	floorOutbox = `INSERT INTO bench_outbox (uuid, payload, metadata) VALUES ($1, $2, '{}')`
)

// benchFloor serves the floor of make bench-orgboard's move: the least a Go server does to
// answer a move over HTTP with the service's two pipelines to PostgreSQL (net/http's server,
// pgx's pool with binary uuids, encoding/json), and nothing else: no contract, token,
// middleware, telemetry, or forwarding of the outbox row. Its rate beside pgbench's says how
// much of the gap between the service and pgbench is Go's and HTTP's, whatever the service
// does. It also answers GET /api/orgboard/board with the in-progress items, which is all the
// load generator reads of a board. Not a service: it trusts its --user and checks nothing.
func benchFloor(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench-floor", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8099", "address to serve on")
	user := fs.String("user", "", "the member every move is made as")
	payload := fs.String("outbox-payload", "{}", "the outbox row's payload")
	if err := fs.Parse(args); err != nil {
		return err
	}
	member, err := uuid.Parse(*user)
	if err != nil {
		return usageErr("--user: %v", err)
	}
	c, err := loadConfig()
	if err != nil {
		return err
	}
	cfg, err := pgxpool.ParseConfig(c.DatabaseURL)
	if err != nil {
		return err
	}
	cfg.MaxConns = int32(c.DBMaxConns)
	pgxdb.BinaryUUIDs(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	f := floor{pool: pool, member: member, tenant: uuid.New(), payload: []byte(*payload)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/orgboard/board", f.board)
	mux.HandleFunc("PATCH /api/orgboard/tasks/{id}/move", f.move)
	srv := &http.Server{Addr: *addr, Handler: mux, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type floor struct {
	pool    *pgxpool.Pool
	member  uuid.UUID
	tenant  uuid.UUID
	payload []byte
}

func (f floor) board(w http.ResponseWriter, r *http.Request) {
	rows, _ := f.pool.Query(r.Context(), `SELECT id FROM work_items WHERE team_id = $1 AND status = 'in_progress' ORDER BY created_at, id`, r.URL.Query().Get("team_id"))
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	type item struct {
		ID uuid.UUID `json:"id"`
	}
	items := make([]item, len(ids))
	for i, id := range ids {
		items[i].ID = id
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"columns": []any{map[string]any{"status": "in_progress", "items": items}}})
}

// move runs a move's transaction as the service sends it: BEGIN, the caller's blocks and the
// item locked in one round trip; the update, the audit entry, the outbox row and COMMIT in a
// second. It answers the moved item in the contract's shape.
func (f floor) move(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		http.Error(w, "id: "+err.Error(), http.StatusBadRequest)
		return
	}
	var body orgboard.WorkItemMove
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	c, err := f.pool.Acquire(ctx)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer c.Release()
	it, err := f.lock(ctx, c, id)
	if err != nil {
		_, _ = c.Exec(ctx, "ROLLBACK")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	from := it.Status
	it.Status, it.UpdatedAt = body.Status, time.Now()
	before, _ := json.Marshal(map[string]any{"status": from})
	after, _ := json.Marshal(map[string]any{"status": it.Status})
	b := &pgx.Batch{}
	b.Queue(floorUpdate, id, string(it.Status), it.UpdatedAt)
	b.Queue(floorAudit, uuid.New(), it.OrganizationId, f.member, it.TeamId, id, before, after, it.UpdatedAt)
	b.Queue(floorOutbox, uuid.NewString(), f.payload)
	b.Queue("COMMIT")
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out, _ := json.Marshal(it)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

func (f floor) lock(ctx context.Context, c *pgxpool.Conn, id uuid.UUID) (orgboard.WorkItem, error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(floorBlocks, f.member, f.tenant)
	b.Queue(floorLock, id, f.member)
	br := c.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return orgboard.WorkItem{}, err
	}
	rows, _ := br.Query()
	rows.Close()
	if err := rows.Err(); err != nil {
		return orgboard.WorkItem{}, err
	}
	var (
		it                 orgboard.WorkItem
		kind, status       string
		description, role  *string
		userID, seatID     *uuid.UUID
		lead, leadsSomeone bool
	)
	err := br.QueryRow().Scan(&it.Id, &it.OrganizationId, &it.TeamId, &kind, &it.Title, &description, &status,
		&userID, &seatID, &it.ParentId, &it.CreatedBy, &it.CreatedAt, &it.UpdatedAt, &role, &lead, &leadsSomeone)
	if err != nil {
		return orgboard.WorkItem{}, err
	}
	it.Type, it.Status = orgboard.WorkItemType(kind), orgboard.WorkItemStatus(status)
	if description != nil {
		it.Description = *description
	}
	switch {
	case userID != nil:
		it.Assignee = &orgboard.Assignee{Kind: orgboard.AssigneeKindUser, Id: *userID}
	case seatID != nil:
		it.Assignee = &orgboard.Assignee{Kind: orgboard.AssigneeKindSeat, Id: *seatID}
	}
	return it, br.Close()
}
