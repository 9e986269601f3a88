package ablation_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/emotion"
	"github.com/zenbrain/zb/bench/ablation"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

func TestNewWorld(t *testing.T) {
	t.Parallel()
	w1, err := ablation.NewWorld(ablation.Moderate, 42)
	require.NoError(t, err)
	w2, err := ablation.NewWorld(ablation.Moderate, 42)
	require.NoError(t, err)
	require.Equal(t, w1, w2, "a seed gives the same world")
	w3, err := ablation.NewWorld(ablation.Moderate, 123)
	require.NoError(t, err)
	require.NotEqual(t, w1.Facts[0].Text, w3.Facts[0].Text)

	require.Len(t, w1.Facts, 300)
	require.Len(t, w1.Episodes, 60)
	require.Len(t, w1.Queries, 100+60)
	require.Len(t, w1.Traffic, 45)
	for _, day := range w1.Traffic {
		require.Len(t, day, ablation.QueriesPerDayDefault)
	}
	tg, err := emotion.NewTagger(nil)
	require.NoError(t, err)
	seen := map[string]bool{}
	emotional, revised := 0, 0
	for _, f := range w1.Facts {
		pair := f.Person + "/" + f.Attr
		require.False(t, seen[pair], "one fact per subject and attribute: %s", pair)
		seen[pair] = true
		tag, err := tg.Tag(f.Text)
		require.NoError(t, err)
		if f.Emotional {
			emotional++
			require.GreaterOrEqual(t, tag.DecayMultiplier, 2.5, "emotional fact %q", f.Text)
		} else {
			require.Equal(t, 1.0, tag.DecayMultiplier, "neutral fact %q", f.Text)
		}
		if f.Revision != nil {
			revised++
			require.Greater(t, f.Revision.Day, f.Day)
			require.NotEqual(t, f.Value, f.Revision.Value)
		}
	}
	require.InDelta(t, 0.2*300, emotional, 25)
	require.Equal(t, 30, revised)
	for _, q := range w1.Queries {
		require.NotEmpty(t, q.Targets)
		require.LessOrEqual(t, len(q.Targets), 3)
		for _, k := range q.Targets {
			require.NotEmpty(t, w1.Value(k))
		}
	}
	// Units: every fact, plus the episodes stored by then; revisions replace their fact.
	require.Len(t, w1.Units(0), 300+countEpisodes(w1, 0))
	last := w1.Units(44)
	require.Len(t, last, 360)
	require.Equal(t, 30, countSuffix(last, "r"))

	_, err = ablation.NewWorld(ablation.Workload{Name: "x", Facts: 5, Queries: 1, Days: 1, BaseDecay: 0.1}, 1)
	require.ErrorIs(t, err, ablation.ErrBadSpec)
	_, err = ablation.NewWorld(ablation.Workload{Name: "x", Facts: 100, FactsPerDay: 10, Queries: 10, Days: 5, BaseDecay: 0.1}, 1)
	require.ErrorIs(t, err, ablation.ErrBadSpec)
}

func countEpisodes(w *ablation.World, day int) int {
	n := 0
	for _, e := range w.Episodes {
		if e.Day <= day {
			n++
		}
	}
	return n
}

func countSuffix(keys []string, suf string) int {
	n := 0
	for _, k := range keys {
		if len(k) > 0 && k[len(k)-1:] == suf {
			n++
		}
	}
	return n
}

func TestStabilityFor(t *testing.T) {
	t.Parallel()
	p := ablation.StabilityFor(0.25)
	require.Equal(t, 4*24*time.Hour, p.LongStability)
	require.Equal(t, 4*24*time.Hour/7, p.ShortStability)
}

func TestArms(t *testing.T) {
	t.Parallel()
	arms := ablation.DefaultArms()
	ids := coordinator.AlgorithmIDs()
	require.Len(t, arms, len(ids)+3)
	require.Equal(t, ablation.ArmFull, arms[0].Name)
	bare := ablation.BareArm()
	require.Len(t, bare.Disabled, len(ids)-1)
	require.NotContains(t, bare.Disabled, "decay")
	for _, id := range ablation.HarnessIDs {
		require.Contains(t, ids, id)
	}
	for _, id := range ablation.PMAIDs {
		require.Contains(t, ids, id)
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	// Synthetic runs: "-a" differs from full on every seed, "-b" is identical.
	res := &ablation.Results{Settings: ablation.Settings{
		Workloads: []ablation.Workload{ablation.Moderate},
		Seeds:     []uint32{1, 2, 3, 4, 5, 6, 7, 8}, Arms: map[string][]ablation.Arm{"moderate": {
			{Name: "full"},
			ablation.ArmRemove("decay"),
			ablation.ArmRemove("gwt"),
		}},
	}}
	for i, s := range res.Settings.Seeds {
		q := 0.5 + 0.01*float64(i)
		tl := slices.Repeat([]float64{0.9}, 45)
		res.Runs = append(res.Runs,
			ablation.RunResult{Workload: "moderate", Seed: s, Arm: "full", Retention: q, P5: 1, Q: q, Timeline: tl},
			ablation.RunResult{Workload: "moderate", Seed: s, Arm: "-decay", Retention: q * 0.8, P5: 1, Q: q * 0.8, Timeline: tl},
			ablation.RunResult{Workload: "moderate", Seed: s, Arm: "-gwt", Retention: q, P5: 1, Q: q, Timeline: tl})
	}
	require.NoError(t, ablation.Aggregate(res))
	var dec, gwt *ablation.MechanismVerdict
	for i := range res.Mechanisms {
		switch res.Mechanisms[i].ID {
		case "decay":
			dec = &res.Mechanisms[i]
		case "gwt":
			gwt = &res.Mechanisms[i]
		}
	}
	require.NotNil(t, dec)
	require.NotNil(t, gwt)
	require.InDelta(t, -0.2, dec.DeltaQ, 1e-9)
	require.InDelta(t, 2.0/256, dec.P, 1e-9, "exact Wilcoxon p with 8 seeds all one way")
	require.True(t, dec.Measurable)
	require.False(t, gwt.Measurable)
	require.True(t, gwt.Identical)
	require.Equal(t, []string{"gwt"}, res.NoEffect())

	dir := t.TempDir()
	require.NoError(t, res.Write(dir))
	for _, f := range []string{ablation.ResultsJSON, ablation.ResultsMarkdown, ablation.ChartDeltaQ, ablation.ChartRetention} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Positive(t, st.Size(), f)
	}
	png, err := os.ReadFile(filepath.Join(dir, ablation.ChartDeltaQ))
	require.NoError(t, err)
	require.Equal(t, "\x89PNG", string(png[:4]))
	md, err := os.ReadFile(filepath.Join(dir, ablation.ResultsMarkdown))
	require.NoError(t, err)
	require.Contains(t, string(md), "**No measurable effect on Q**")
	require.Contains(t, string(md), "| decay |")
}

func TestSuiteScreeningAndLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: 32})
	env, err := ablation.NewEnv(ctx, pool)
	require.NoError(t, err)
	log := filepath.Join(t.TempDir(), "runs.jsonl")
	cfg := &ablation.SuiteConfig{
		Env: env, Seeds: []uint32{42, 123}, Parallel: 3, RunLog: log, SkipIdenticalAfter: 1,
		Workloads: []ablation.Workload{{Name: "tiny", Facts: 12, Queries: 4, Days: 1, BaseDecay: 0.2}}, QueriesPerDay: 1, EvalQueries: 4,
		Arms: []ablation.Arm{{Name: ablation.ArmFull}, ablation.ArmRemove("gwt"), ablation.ArmRemove("decay")},
	}
	res, err := ablation.RunSuite(ctx, cfg)
	require.NoError(t, err)
	count := map[string]int{}
	for _, r := range res.Runs {
		count[r.Arm]++
	}
	// gwt is read by nothing on this path: identical on the first seed, then screened out;
	// switching decay off changes retention, so it runs on every seed.
	require.Equal(t, map[string]int{"full": 2, "-gwt": 1, "-decay": 2}, count)
	var gwt, dec ablation.ArmSummary
	for _, s := range res.Summaries {
		switch s.Arm {
		case "-gwt":
			gwt = s
		case "-decay":
			dec = s
		}
	}
	require.True(t, gwt.Identical)
	require.Equal(t, 1, gwt.Skipped)
	require.False(t, dec.Identical)
	require.Greater(t, dec.Retention.Mean, res.Summaries[0].Retention.Mean, "without decay nothing fades")
	require.InDelta(t, 1, dec.Retention.Mean, 1e-12)

	// Every run cleaned up after itself (the fast table-by-table delete of a superuser): no
	// tenant and no row of any tenant table is left.
	rows, err := pool.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE n.nspname = 'zb' AND c.relkind = 'r' AND a.attname = 'tenant_id' AND NOT a.attisdropped`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Greater(t, len(tables), 30)
	for _, tb := range append(tables, "zb.tenant") {
		var n int
		require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM "+tb).Scan(&n))
		require.Zero(t, n, tb)
	}

	// The log holds the runs: a report-only pass aggregates the same figures without running.
	cfg.ReportOnly = true
	again, err := ablation.RunSuite(ctx, cfg)
	require.NoError(t, err)
	require.Equal(t, res.Summaries, again.Summaries)
}

// With OpenDatabase's Env every run has a database of its own, copied from the migrated
// template and dropped after the run: runs of one world and arm give identical figures whether
// they run one after the other or side by side, and no run database is left behind.
func TestRunsInDatabasesOfTheirOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := zbtest.AdminURL(t)
	d, err := ablation.OpenDatabase(ctx, admin, 32, 4)
	require.NoError(t, err)
	w, err := ablation.NewWorld(ablation.Workload{Name: "tiny", Facts: 16, Queries: 6, Days: 3, BaseDecay: 0.3}, 7)
	require.NoError(t, err)
	spec := ablation.RunSpec{World: w, Arm: ablation.ArmFull}
	first, err := ablation.Run(ctx, d.Env, spec)
	require.NoError(t, err)
	res, err := ablation.RunAll(ctx, d.Env, []ablation.RunSpec{spec, spec, spec}, &ablation.RunAllOpts{Parallel: 3})
	require.NoError(t, err)
	for _, r := range res {
		require.Equal(t, first.Timeline, r.Timeline)
		require.Equal(t, first.Q, r.Q)
		// λ₂ is an eigenvalue (gonum) of a Laplacian whose node order may differ between runs:
		// equal up to rounding.
		require.InDelta(t, first.Counters.FiedlerFirst, r.Counters.FiedlerFirst, 1e-12)
		require.InDelta(t, first.Counters.FiedlerLast, r.Counters.FiedlerLast, 1e-12)
		a, b := first.Counters, r.Counters
		a.FiedlerFirst, a.FiedlerLast, b.FiedlerFirst, b.FiedlerLast = 0, 0, 0, 0
		require.Equal(t, a, b)
	}
	// The shared database saw none of it.
	var n int
	require.NoError(t, d.Env.Pool.QueryRow(ctx, `SELECT count(*) FROM zb.memory`).Scan(&n))
	require.Zero(t, n)
	conn, err := pgx.Connect(ctx, admin)
	require.NoError(t, err)
	defer conn.Close(ctx)
	count := func() int {
		var c int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname LIKE $1`, d.Name+"%").Scan(&c))
		return c
	}
	require.Equal(t, 2, count(), "the shared database and its template; the runs' databases are gone")
	d.Close()
	require.Zero(t, count())
}
