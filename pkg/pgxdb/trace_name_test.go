package pgxdb

import (
	"strings"
	"testing"
)

func TestASpanIsNamedAfterTheSqlcQueryElseTheStatementsFirstKeyword(t *testing.T) {
	long := "UPDATE render_jobs SET " + strings.Repeat("a = @a,\n    ", 40) + "b = @b WHERE job_id = @job_id"
	tests := []struct{ sql, want string }{
		{"-- name: GetJob :one\nSELECT * FROM render_jobs WHERE job_id = $1", "GetJob"},
		{"-- name: SaveJob :batchexec\n" + long, "SaveJob"},
		{"  -- name: SaveJob\t:exec\n" + long, "SaveJob"},
		{"-- name: \n" + long, "UPDATE"},
		{"-- a comment\n-- another\n  select 1", "SELECT"},
		{"\n\t" + long, "UPDATE"},
		{"insert\u00a0into t values (1)", "INSERT"},
		{"", "query"},
		{"-- only a comment", "query"},
	}
	for _, tt := range tests {
		if got := spanName(tt.sql); got != tt.want {
			t.Errorf("spanName(%.40q) = %q, want %q", tt.sql, got, tt.want)
		}
		if f := strings.Fields(tt.sql); len(f) > 0 && firstField(tt.sql) != f[0] {
			t.Errorf("firstField(%.40q) = %q, strings.Fields' first is %q", tt.sql, firstField(tt.sql), f[0])
		}
	}
}
