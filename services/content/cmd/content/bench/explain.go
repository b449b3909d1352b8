package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Plan is what EXPLAIN (ANALYZE, BUFFERS) says of one statement: the shape of its plan and the
// buffers it touched, which the load on the machine does not move. A statement's subplans
// (the catalog search's total is one) are given apart from the rest (the page).
type Plan struct {
	Shape    string    `json:"shape"`
	Buffers  int64     `json:"buffers"` // shared blocks hit or read by the whole statement
	TimeMS   float64   `json:"time_ms"`
	Subplans []Subplan `json:"subplans,omitempty"`
}

// Subplan is one InitPlan or SubPlan of a statement.
type Subplan struct {
	Name    string `json:"name"`
	Shape   string `json:"shape"`
	Buffers int64  `json:"buffers"`
}

type planNode struct {
	NodeType   string     `json:"Node Type"`
	Index      string     `json:"Index Name"`
	Relation   string     `json:"Relation Name"`
	Subplan    string     `json:"Subplan Name"`
	Parent     string     `json:"Parent Relationship"`
	SharedHit  int64      `json:"Shared Hit Blocks"`
	SharedRead int64      `json:"Shared Read Blocks"`
	Loops      int64      `json:"Actual Loops"`
	Plans      []planNode `json:"Plans"`
}

// explained names the prepared statement Explain runs.
const explained = "bench_explained"

// Explain runs st under EXPLAIN (ANALYZE, BUFFERS) on conn, with the plan the service runs: an
// unprepared statement is planned for its arguments, a prepared one as PostgreSQL plans it from
// its sixth execution on, when it may keep a generic plan for any arguments.
func Explain(ctx context.Context, conn *pgx.Conn, st Statement) (Plan, error) {
	sql, args := "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+st.SQL, st.Args
	if !st.Unprepared {
		execute, err := settledExecute(ctx, conn, st)
		if err != nil {
			return Plan{}, fmt.Errorf("explain: %w", err)
		}
		defer conn.Deallocate(ctx, explained) //nolint:errcheck // the connection is the benchmark's own
		sql, args = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+execute, nil
	}
	var raw []byte
	if err := conn.QueryRow(ctx, sql, args...).Scan(&raw); err != nil {
		return Plan{}, fmt.Errorf("explain: %w", err)
	}
	var out []struct {
		Plan planNode `json:"Plan"`
		Time float64  `json:"Execution Time"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out) == 0 {
		return Plan{}, fmt.Errorf("explain: unexpected output: %w", err)
	}
	root := out[0].Plan
	p := Plan{Buffers: root.SharedHit + root.SharedRead, TimeMS: out[0].Time}
	var b strings.Builder
	shape(&b, root, func(n planNode) bool {
		if n.Subplan == "" {
			return true
		}
		p.Subplans = append(p.Subplans, Subplan{Name: n.Subplan, Shape: shapeOf(n), Buffers: n.SharedHit + n.SharedRead})
		return false
	})
	p.Shape = b.String()
	return p, nil
}

func shapeOf(n planNode) string {
	var b strings.Builder
	shape(&b, n, func(planNode) bool { return true })
	return b.String()
}

// shape writes a node and the children keep accepts as "Node (index) > child, child".
func shape(b *strings.Builder, n planNode, keep func(planNode) bool) {
	b.WriteString(n.NodeType)
	switch {
	case n.Index != "":
		b.WriteString(" using " + n.Index)
	case n.Relation != "":
		b.WriteString(" on " + n.Relation)
	}
	if n.Loops > 1 {
		fmt.Fprintf(b, " x%d", n.Loops)
	}
	var kids []planNode
	for _, c := range n.Plans {
		if keep(c) {
			kids = append(kids, c)
		}
	}
	if len(kids) == 0 {
		return
	}
	b.WriteString(" > ")
	if len(kids) > 1 {
		b.WriteString("(")
	}
	for i, c := range kids {
		if i > 0 {
			b.WriteString(", ")
		}
		shape(b, c, keep)
	}
	if len(kids) > 1 {
		b.WriteString(")")
	}
}

// settledExecute prepares st under the name explained, runs it five times (PostgreSQL plans the
// first five executions for their arguments, then compares with a generic plan) and returns the
// EXECUTE of it with st's arguments as literals.
func settledExecute(ctx context.Context, conn *pgx.Conn, st Statement) (string, error) {
	if _, err := conn.Prepare(ctx, explained, st.SQL); err != nil {
		return "", err
	}
	for range 5 {
		rows, err := conn.Query(ctx, explained, st.Args...)
		if err != nil {
			return "", err
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	b.WriteString("EXECUTE " + explained)
	for i, a := range st.Args {
		v, err := literal(a)
		if err != nil {
			return "", fmt.Errorf("argument %d: %w", i+1, err)
		}
		if i == 0 {
			b.WriteString("(")
		} else {
			b.WriteString(", ")
		}
		b.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
	}
	if len(st.Args) > 0 {
		b.WriteString(")")
	}
	return b.String(), nil
}
