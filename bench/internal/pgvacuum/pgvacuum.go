// Package pgvacuum brings a benchmark database to the steady state autovacuum would leave it in
// before anything is timed: tables vacuumed and analyzed, with their visibility maps complete.
package pgvacuum

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Enough is the share of all-visible pages at which Visible stops.
const Enough = 0.995

// Visible vacuums and analyzes tables (every table of schema zb when none is named) until the
// visibility map marks at least Enough of their pages all-visible, and returns that share and
// the number of VACUUMs it took. A VACUUM cannot mark rows all-visible while another
// transaction's snapshot predates them — after a bulk load typically an autovacuum ANALYZE that
// began during the load's last statements — and index-only scans then read the heap for every
// row: in one 10k tenant recall's lexical half took 7–10 ms instead of 3.5 in about half the
// perf benchmark's runs until it waited for this. Visible retries every 200 ms for at most
// maxWait, then returns what it reached.
func Visible(ctx context.Context, pool *pgxpool.Pool, maxWait time.Duration, tables ...string) (float64, int, error) {
	vacuum := strings.TrimSpace(`VACUUM (ANALYZE) ` + strings.Join(tables, ", "))
	const check = `SELECT coalesce(sum(relallvisible)::float8 / nullif(sum(relpages), 0), 1) FROM pg_class
		WHERE CASE WHEN cardinality($1::text[]) > 0 THEN oid = ANY ($1::text[]::regclass[])
		           ELSE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'zb') AND relkind = 'r' END`
	deadline := time.Now().Add(maxWait)
	for round := 1; ; round++ {
		if _, err := pool.Exec(ctx, vacuum); err != nil {
			return 0, round, err
		}
		var share float64
		if err := pool.QueryRow(ctx, check, tables).Scan(&share); err != nil {
			return 0, round, err
		}
		if share >= Enough || time.Now().After(deadline) {
			return share, round, nil
		}
		select {
		case <-ctx.Done():
			return share, round, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
