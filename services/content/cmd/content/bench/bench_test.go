package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

func TestScriptTurnsStatementsIntoOnePGBenchTransaction(t *testing.T) {
	id := uuid.MustParse("01a202c4-c7dd-7325-9a95-0fd169001fa7")
	script, defines, err := Script([]Statement{
		{SQL: "-- name: GetProject :one\nSELECT *\nFROM projects WHERE id = $1;\n", Args: []any{id}},
		{SQL: "SELECT $1::text, $2::uuid[], $3, $4, $12", Args: []any{"wedding", []uuid.UUID{id, id}, int64(20), true,
			5, 6, 7, 8, 9, 10, 11, int32(12)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(script), "\n")
	if len(lines) != 2 || lines[0] != "SELECT * FROM projects WHERE id = :s0_1;" ||
		lines[1] != "SELECT :s1_1::text, :s1_2::uuid[], :s1_3, :s1_4, :s1_12;" {
		t.Errorf("script:\n%s", script)
	}
	want := []string{"s0_1=" + id.String(), "s1_1=wedding", "s1_2={" + id.String() + "," + id.String() + "}", "s1_3=20", "s1_4=true"}
	for i, w := range want {
		if defines[i] != w {
			t.Errorf("define %d = %q, want %q", i, defines[i], w)
		}
	}
	if _, _, err := Script([]Statement{{SQL: "SELECT $1", Args: []any{struct{}{}}}}); err == nil {
		t.Error("an argument without a text form must be refused")
	}
}

func TestSummarizeGivesThroughputAndPercentiles(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	r := summarize(lat, 2, 10*time.Second)
	if r.Requests != 100 || r.Errors != 2 || r.RPS != 10 || r.P50 != 51*time.Millisecond || r.P99 != 100*time.Millisecond {
		t.Errorf("%+v", r)
	}
}

func TestMergeTakesRoundsAsOneRun(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	a := summarize(ms(9, 1, 5), 1, 2*time.Second)
	b := summarize(ms(2, 8, 3, 7, 4, 6, 10), 0, 3*time.Second)
	got := Merge(a, b)
	want := summarize(ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 1, 5*time.Second)
	if got.Requests != 10 || got.Errors != 1 || got.Duration != 5*time.Second || got.RPS != 2 ||
		got.P50 != want.P50 || got.P99 != want.P99 || got.P50 != 6*time.Millisecond {
		t.Errorf("Merge = %+v, want %+v", got, want)
	}
}

func TestPGBenchCountsOnlyTheTransactionsAfterTheWarmup(t *testing.T) {
	cutoff := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return cutoff.Add(time.Duration(ms) * time.Millisecond) }
	txs := []transaction{
		{end: at(-900), latency: 400 * time.Millisecond}, // a new backend's first transaction
		{end: at(-1), latency: 300 * time.Millisecond},
		{end: at(0), latency: 2 * time.Millisecond},
		{end: at(1500), latency: 3 * time.Millisecond},
		{end: at(2000), latency: 4 * time.Millisecond},
	}
	lat, window := measured(txs, cutoff)
	if len(lat) != 3 || window != 2*time.Second {
		t.Fatalf("measured %v over %v, want 3 transactions over 2s", lat, window)
	}
	if r := summarize(lat, 0, window); r.RPS != 1.5 || r.P99 != 4*time.Millisecond {
		t.Errorf("result %+v", r)
	}
}

func TestPGBenchMeasuresFromEveryClientsFirstTransactionOn(t *testing.T) {
	warmup := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return warmup.Add(time.Duration(ms) * time.Millisecond) }
	txs := []transaction{
		{client: 0, end: at(-500)}, {client: 0, end: at(100)},
		{client: 1, end: at(300)}, // a slow first transaction, past the warmup
		{client: 1, end: at(400)},
	}
	if got := warmedUp(txs, warmup); !got.Equal(at(300)) {
		t.Errorf("warmed up at %v, want the end of client 1's first transaction", got)
	}
	if got := warmedUp(txs[:2], warmup); !got.Equal(warmup) {
		t.Errorf("warmed up at %v, want the warmup's end", got)
	}
}

func TestStatementsTheServiceBatchedArePipelinedByPGBenchToo(t *testing.T) {
	script, _, err := Script([]Statement{
		{SQL: "BEGIN"},
		{SQL: "SELECT 1", Batch: 1},
		{SQL: "SELECT 2", Batch: 1},
		{SQL: "COMMIT"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "BEGIN;\n\\startpipeline\nSELECT 1;\nSELECT 2;\n\\endpipeline\nCOMMIT;\n"
	if script != want {
		t.Fatalf("script:\n%s\nwant:\n%s", script, want)
	}
}

func TestAStatementSentUnnamedIsRunByPGBenchWithTheExtendedProtocol(t *testing.T) {
	prepared := statementOf("SELECT $1", []any{"a"}, 0)
	unnamed := statementOf("SELECT $1", []any{pgx.QueryExecModeCacheDescribe, "a"}, 0)
	if prepared.Unprepared || !unnamed.Unprepared || len(unnamed.Args) != 1 || unnamed.Args[0] != "a" {
		t.Fatalf("prepared %+v, unnamed %+v", prepared, unnamed)
	}
	if got := Protocol([]Statement{unnamed}); got != "extended" {
		t.Errorf("unnamed statements: %s", got)
	}
	if got := Protocol([]Statement{unnamed, prepared}); got != "prepared" {
		t.Errorf("a prepared statement among them: %s", got)
	}
	if _, defines, err := Script([]Statement{unnamed}); err != nil || len(defines) != 1 || defines[0] != "s0_1=a" {
		t.Errorf("defines %q, %v", defines, err)
	}
}
