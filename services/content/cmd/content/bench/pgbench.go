package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Statement is one SQL statement with its arguments, as the service ran it. Statements the
// service sent together in one batch (one round trip) share a Batch number above zero.
type Statement struct {
	SQL   string
	Args  []any
	Batch int
	// Unprepared statements were sent unnamed, planned for their arguments at every execution
	// (pgx's QueryExecModeCacheDescribe, DescribeExec or Exec), not as a prepared statement.
	Unprepared bool
}

// statementOf records sql with its arguments, the query execution mode pgx takes as a first
// argument read off them.
func statementOf(sql string, args []any, batch int) Statement {
	st := Statement{SQL: sql, Args: args, Batch: batch}
	if mode, ok := firstArg(args).(pgx.QueryExecMode); ok {
		st.Args = args[1:]
		st.Unprepared = mode != pgx.QueryExecModeCacheStatement
	}
	return st
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

// Protocol is the pgbench protocol (-M) that sends statements as the service did: "extended"
// (an unnamed statement planned at every execution) when the service prepared none of them,
// else "prepared".
func Protocol(statements []Statement) string {
	for _, st := range statements {
		if !st.Unprepared {
			return "prepared"
		}
	}
	return "extended"
}

// Recorder is a pgx tracer that keeps every statement run through the connection, so the
// benchmark hands pgbench exactly the SQL of a request.
type Recorder struct {
	mu         sync.Mutex
	Statements []Statement
	batches    int
	inBatch    int
}

// TraceQueryStart records the statement.
func (r *Recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	r.Statements = append(r.Statements, statementOf(d.SQL, d.Args, 0))
	r.mu.Unlock()
	return ctx
}

// Reset forgets the statements recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.Statements = nil
	r.mu.Unlock()
}

// TraceQueryEnd does nothing.
func (r *Recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart numbers the batch whose statements follow.
func (r *Recorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.mu.Lock()
	r.batches++
	r.inBatch = r.batches
	r.mu.Unlock()
	return ctx
}

// TraceBatchQuery records a statement of the current batch.
func (r *Recorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.mu.Lock()
	r.Statements = append(r.Statements, statementOf(d.SQL, d.Args, r.inBatch))
	r.mu.Unlock()
}

// TraceBatchEnd closes the batch.
func (r *Recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {
	r.mu.Lock()
	r.inBatch = 0
	r.mu.Unlock()
}

var placeholder = regexp.MustCompile(`\$(\d+)`)

// Script turns statements into a pgbench script (one transaction = every statement, in order)
// and the -D variable definitions of their arguments; with -M prepared, pgbench sends each
// :variable as a parameter, as pgx does.
func Script(statements []Statement) (script string, defines []string, err error) {
	var b strings.Builder
	open := 0 // the batch a pipeline is open for
	for i, st := range statements {
		// A batch the service pipelined is pipelined by pgbench too: the same round trips.
		if st.Batch != open {
			if open != 0 {
				b.WriteString("\\endpipeline\n")
			}
			if st.Batch != 0 {
				b.WriteString("\\startpipeline\n")
			}
			open = st.Batch
		}
		sql := placeholder.ReplaceAllStringFunc(st.SQL, func(m string) string {
			return fmt.Sprintf(":s%d_%s", i, m[1:])
		})
		// One line per statement, without the full-line comments sqlc keeps in its SQL.
		var kept []string
		for _, line := range strings.Split(sql, "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
				kept = append(kept, t)
			}
		}
		b.WriteString(strings.TrimSuffix(strings.Join(kept, " "), ";"))
		b.WriteString(";\n")
		for k, a := range st.Args {
			v, err := literal(a)
			if err != nil {
				return "", nil, fmt.Errorf("statement %d argument %d: %w", i, k+1, err)
			}
			defines = append(defines, fmt.Sprintf("s%d_%d=%s", i, k+1, v))
		}
	}
	if open != 0 {
		b.WriteString("\\endpipeline\n")
	}
	return b.String(), defines, nil
}

// literal is the text form PostgreSQL parses for a parameter.
func literal(a any) (string, error) {
	switch v := a.(type) {
	case string:
		return v, nil
	case uuid.UUID:
		return v.String(), nil
	case []uuid.UUID:
		parts := make([]string, len(v))
		for i, id := range v {
			parts[i] = id.String()
		}
		return "{" + strings.Join(parts, ",") + "}", nil
	case bool:
		return strconv.FormatBool(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int32:
		return strconv.FormatInt(int64(v), 10), nil
	case int:
		return strconv.Itoa(v), nil
	}
	return "", fmt.Errorf("no text form for %T", a)
}

// PGBench runs script with pgbench at concurrency clients for warmup then duration, sending
// statements with protocol (see Protocol), and reads the per-transaction log for the rate and
// percentiles of the transactions that ended after the warmup and after every client's first
// transaction. The warmup runs on the measured connections: a new backend loads its catalog
// caches and prepares its statements in its first transaction, which would otherwise fall in the
// measured window.
func PGBench(ctx context.Context, dbURL, script string, defines []string, protocol string, concurrency int, warmup, duration time.Duration) (Result, error) {
	dir, err := os.MkdirTemp("", "content-pgbench-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "script.sql")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		return Result{}, err
	}
	a := []string{"-n", "-M", protocol, "-c", strconv.Itoa(concurrency), "-j", "2",
		"-T", strconv.Itoa(max(1, int((warmup + duration).Seconds()))), "-f", file,
		"-l", "--log-prefix", filepath.Join(dir, "tx")}
	for _, def := range defines {
		a = append(a, "-D", def)
	}
	start := time.Now()
	out, err := exec.CommandContext(ctx, "pgbench", append(a, dbURL)...).CombinedOutput()
	if err != nil {
		return Result{}, fmt.Errorf("pgbench: %w: %s", err, out)
	}
	logs, err := filepath.Glob(filepath.Join(dir, "tx.*"))
	if err != nil {
		return Result{}, err
	}
	var txs []transaction
	for _, l := range logs {
		if txs, err = readLog(l, txs); err != nil {
			return Result{}, err
		}
	}
	lat, window := measured(txs, warmedUp(txs, start.Add(warmup)))
	return summarize(lat, failedTransactions(string(out)), window), nil
}

// transaction is one line of pgbench's per-transaction log: its client, when it ended and how
// long it took.
type transaction struct {
	client  int
	end     time.Time
	latency time.Duration
}

// warmedUp is when every client has ended its first transaction, or after, when that is later.
func warmedUp(txs []transaction, after time.Time) time.Time {
	first := map[int]time.Time{}
	for _, t := range txs {
		if f, ok := first[t.client]; !ok || t.end.Before(f) {
			first[t.client] = t.end
		}
	}
	for _, f := range first {
		if f.After(after) {
			after = f
		}
	}
	return after
}

// measured keeps the transactions that ended from cutoff on: their latencies and the window from
// cutoff to the last of them.
func measured(txs []transaction, cutoff time.Time) ([]time.Duration, time.Duration) {
	var (
		lat  []time.Duration
		last = cutoff
	)
	for _, t := range txs {
		if t.end.Before(cutoff) {
			continue
		}
		lat = append(lat, t.latency)
		if t.end.After(last) {
			last = t.end
		}
	}
	return lat, last.Sub(cutoff)
}

// readLog appends the transactions of a log of "client tx latency_us script epoch_s epoch_us"
// lines to txs.
func readLog(path string, txs []transaction) ([]transaction, error) {
	f, err := os.Open(path)
	if err != nil {
		return txs, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		client, err0 := strconv.Atoi(fields[0])
		us, err1 := strconv.ParseInt(fields[2], 10, 64)
		sec, err2 := strconv.ParseInt(fields[4], 10, 64)
		usec, err3 := strconv.ParseInt(fields[5], 10, 64)
		if err0 != nil || err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		txs = append(txs, transaction{client: client, end: time.Unix(sec, usec*1000), latency: time.Duration(us) * time.Microsecond})
	}
	return txs, sc.Err()
}

var failedLine = regexp.MustCompile(`number of failed transactions: (\d+)`)

func failedTransactions(out string) int64 {
	if m := failedLine.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	return 0
}
