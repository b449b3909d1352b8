package pgxdb

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// PoolCollector exports a pool's statistics (pgxpool.Stat) when /metrics is scraped: the
// connections in each state and the pool's bound, and the cumulative acquires, the time they
// took and how often and how long they waited for a free connection. Register one per pool.
type PoolCollector struct {
	pool  *pgxpool.Pool
	descs map[string]*prometheus.Desc
}

// NewPoolCollector returns the collector of pool.
func NewPoolCollector(pool *pgxpool.Pool) *PoolCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return &PoolCollector{pool: pool, descs: map[string]*prometheus.Desc{
		"acquired":     d("db_pool_acquired_connections", "Connections of the database pool in use now."),
		"idle":         d("db_pool_idle_connections", "Connections of the database pool idle now."),
		"constructing": d("db_pool_constructing_connections", "Connections of the database pool being opened now."),
		"total":        d("db_pool_total_connections", "Connections of the database pool now (acquired, idle and being opened)."),
		"max":          d("db_pool_max_connections", "Bound on the connections of the database pool (DB_MAX_CONNS)."),
		"acquires":     d("db_pool_acquires_total", "Connections acquired from the database pool."),
		"acquireTime":  d("db_pool_acquire_duration_seconds_total", "Time spent acquiring connections from the database pool."),
		"empty":        d("db_pool_empty_acquires_total", "Acquires that waited because no connection of the database pool was free."),
		"emptyWait":    d("db_pool_empty_acquire_wait_seconds_total", "Time acquires waited for a free connection of the database pool."),
		"canceled":     d("db_pool_canceled_acquires_total", "Acquires from the database pool given up because their context ended."),
		"new":          d("db_pool_new_connections_total", "Connections the database pool opened."),
		"lifetime":     d("db_pool_max_lifetime_destroys_total", "Connections the database pool closed because they reached their maximum lifetime."),
		"idleClosed":   d("db_pool_max_idle_destroys_total", "Connections the database pool closed because they were idle too long."),
	}}
}

// Describe implements prometheus.Collector.
func (c *PoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *PoolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	gauge := func(k string, v float64) { ch <- prometheus.MustNewConstMetric(c.descs[k], prometheus.GaugeValue, v) }
	counter := func(k string, v float64) { ch <- prometheus.MustNewConstMetric(c.descs[k], prometheus.CounterValue, v) }
	gauge("acquired", float64(s.AcquiredConns()))
	gauge("idle", float64(s.IdleConns()))
	gauge("constructing", float64(s.ConstructingConns()))
	gauge("total", float64(s.TotalConns()))
	gauge("max", float64(s.MaxConns()))
	counter("acquires", float64(s.AcquireCount()))
	counter("acquireTime", s.AcquireDuration().Seconds())
	counter("empty", float64(s.EmptyAcquireCount()))
	counter("emptyWait", s.EmptyAcquireWaitTime().Seconds())
	counter("canceled", float64(s.CanceledAcquireCount()))
	counter("new", float64(s.NewConnsCount()))
	counter("lifetime", float64(s.MaxLifetimeDestroyCount()))
	counter("idleClosed", float64(s.MaxIdleDestroyCount()))
}
