package store

import (
	"context"
	"errors"
	"testing"
)

func TestAReadAskingForOtherQueriesOnReplayIsCaught(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	if _, err := rec.Query(ctx, "SELECT 1", 7); err != nil {
		t.Fatal(err)
	}
	if len(rec.calls) != 1 || rec.calls[0].sql != "SELECT 1" || rec.calls[0].args[0] != 7 {
		t.Fatalf("recorded %+v", rec.calls)
	}
	// A different query in the same place: its results would be the wrong query's.
	if _, err := (&replayer{calls: rec.calls}).Query(ctx, "SELECT 2"); !errors.Is(err, errPipelineMismatch) {
		t.Fatalf("different query: got %v, want errPipelineMismatch", err)
	}
	// More queries than were recorded: nothing was sent for the extra one.
	extra := &replayer{calls: rec.calls, next: 1}
	if _, err := extra.Query(ctx, "SELECT 1"); !errors.Is(err, errPipelineMismatch) {
		t.Fatalf("extra query: got %v, want errPipelineMismatch", err)
	}
	// Writes have no place in a pipelined read.
	if _, err := rec.Exec(ctx, "DELETE FROM x"); !errors.Is(err, errNotARead) {
		t.Fatalf("exec: got %v", err)
	}
}
