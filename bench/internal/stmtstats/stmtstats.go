// Package stmtstats reads the top statements of pg_stat_statements for the benchmark
// programs: reset before the measured work, read after it, written as a markdown table.
package stmtstats

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Statement is one row of pg_stat_statements.
type Statement struct {
	Query   string  `json:"query"`
	Calls   int64   `json:"calls"`
	TotalMS float64 `json:"total_ms"`
	MeanMS  float64 `json:"mean_ms"`
	Rows    int64   `json:"rows"`
}

// Reset creates the extension in pool's database if needed and clears that database's counters
// (other databases of the server keep theirs). It returns
// "" when the statistics are available, otherwise why not (the extension cannot be created, or
// the server does not preload the library); the caller reports the reason instead of figures.
func Reset(ctx context.Context, pool *pgxpool.Pool) string {
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return "CREATE EXTENSION pg_stat_statements: " + firstLine(err.Error())
	}
	if _, err := pool.Exec(ctx, `SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`); err != nil {
		return "pg_stat_statements is not preloaded (shared_preload_libraries): " + firstLine(err.Error())
	}
	return ""
}

// Top returns the n statements of pool's database with the largest total execution time since
// the last Reset, their text folded to one line of at most 160 runes.
func Top(ctx context.Context, pool *pgxpool.Pool, n int) ([]Statement, error) {
	rows, err := pool.Query(ctx, `SELECT s.query, s.calls, s.total_exec_time, s.mean_exec_time, s.rows
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		WHERE d.datname = current_database() ORDER BY s.total_exec_time DESC LIMIT $1`, n)
	if err != nil {
		return nil, fmt.Errorf("error reading pg_stat_statements: %w", err)
	}
	defer rows.Close()
	var out []Statement
	for rows.Next() {
		var s Statement
		if err := rows.Scan(&s.Query, &s.Calls, &s.TotalMS, &s.MeanMS, &s.Rows); err != nil {
			return nil, err
		}
		s.Query = textproc.OneLine(s.Query, 160)
		out = append(out, s)
	}
	return out, rows.Err()
}

// Markdown writes ss as a table under title (nothing when ss is empty).
func Markdown(w io.Writer, title string, ss []Statement) {
	if len(ss) == 0 {
		return
	}
	fmt.Fprintf(w, "%s\n\n| total (ms) | calls | mean (ms) | rows | query |\n|---:|---:|---:|---:|---|\n", title)
	for _, s := range ss {
		fmt.Fprintf(w, "| %.0f | %d | %.2f | %d | `%s` |\n", s.TotalMS, s.Calls, s.MeanMS, s.Rows, strings.ReplaceAll(s.Query, "|", "\\|"))
	}
	fmt.Fprintln(w)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
