package lifecycle_test

import (
	"os"
	"time"

	"github.com/zenbrain/zb/bench/lifecycle"
)

func ExampleResults_Markdown() {
	res := &lifecycle.Results{
		Started: time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC), Duration: 60,
		Machine: lifecycle.Machine{GoOS: "linux", GoArch: "amd64", CPUs: 2, ServerVersion: "16.4"},
		Decay: []lifecycle.DecayFigure{{
			N: 10000, Faded: 100, Ratio: 2.5, Target: 3, Met: true, Decay: 0.025,
			Archive: 0.01, Archived: 100, RowsRead: 200, Load: 12,
		}},
	}
	res.Markdown(os.Stdout)
	// Output:
	// # Lifecycle benchmarks
	//
	// Run 2026-12-02 15:00 UTC (60 s) on linux/amd64, 2 CPUs, PostgreSQL 16.4. Ratios are measured in the same run; absolute times are for context only.
	//
	// ## Decay: DecayDue over N memories (1% faded) vs a plain UPDATE archiving those rows
	//
	// | N | faded | ratio | target | met | decay (s) | archive UPDATE (s) | archived | rescheduled | rows read | seq scans | load (s) |
	// |---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|
	// | 10000 | 100 | 2.50× | ≤ 3× | yes | 0.0250 | 0.0100 | 100 | 0 | 200 | 0 | 12.0 |
	//
	// Rows read: the zb.memory rows one DecayDue transaction read (sequential and index fetches, pg_stat_xact_user_tables).
}
