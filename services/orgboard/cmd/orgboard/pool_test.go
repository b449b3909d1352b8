package main

import "testing"

// Without DB_MAX_CONNS the pool would take pgx's bound, max(4, CPUs): four connections on a
// two-CPU pod whatever its load.
func TestTheServedPoolIsBoundByDBMaxConns(t *testing.T) {
	t.Setenv("DB_MAX_CONNS", "7")
	s := serve(t)
	if got := s.svc.pool.Config().MaxConns; got != 7 {
		t.Fatalf("DB_MAX_CONNS=7: the pool holds up to %d connections", got)
	}
}
