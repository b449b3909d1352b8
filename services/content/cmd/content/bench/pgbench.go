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

// PGBench runs script with pgbench at concurrency clients for duration (after a short unmeasured
// warmup), sending statements with protocol (see Protocol), and reads the per-transaction log for
// the percentiles.
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
	args := func(d time.Duration, log bool) []string {
		a := []string{"-n", "-M", protocol, "-c", strconv.Itoa(concurrency), "-j", "2",
			"-T", strconv.Itoa(max(1, int(d.Seconds()))), "-f", file}
		for _, def := range defines {
			a = append(a, "-D", def)
		}
		if log {
			a = append(a, "-l", "--log-prefix", filepath.Join(dir, "tx"))
		}
		return append(a, dbURL)
	}
	if warmup > 0 {
		if out, err := exec.CommandContext(ctx, "pgbench", args(warmup, false)...).CombinedOutput(); err != nil {
			return Result{}, fmt.Errorf("pgbench warmup: %w: %s", err, out)
		}
	}
	start := time.Now()
	out, err := exec.CommandContext(ctx, "pgbench", args(duration, true)...).CombinedOutput()
	elapsed := time.Since(start)
	if err != nil {
		return Result{}, fmt.Errorf("pgbench: %w: %s", err, out)
	}
	logs, err := filepath.Glob(filepath.Join(dir, "tx.*"))
	if err != nil {
		return Result{}, err
	}
	var lat []time.Duration
	var first, last float64
	for _, l := range logs {
		if err := readLog(l, &lat, &first, &last); err != nil {
			return Result{}, err
		}
	}
	// The log's own timestamps give the measured window (connection set-up excluded).
	window := time.Duration((last - first) * float64(time.Second))
	if window <= 0 {
		window = elapsed
	}
	return summarize(lat, failedTransactions(string(out)), window), nil
}

// readLog reads "client tx latency_us script epoch_s epoch_us" lines.
func readLog(path string, lat *[]time.Duration, first, last *float64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		us, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			continue
		}
		sec, _ := strconv.ParseFloat(fields[4], 64)
		usec, _ := strconv.ParseFloat(fields[5], 64)
		end := sec + usec/1e6
		if *first == 0 || end < *first {
			*first = end
		}
		if end > *last {
			*last = end
		}
		*lat = append(*lat, time.Duration(us)*time.Microsecond)
	}
	return sc.Err()
}

var failedLine = regexp.MustCompile(`number of failed transactions: (\d+)`)

func failedTransactions(out string) int64 {
	if m := failedLine.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	return 0
}
