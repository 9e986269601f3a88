package lifecycle_test

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/internal/stmtstats"
	"github.com/zenbrain/zb/bench/lifecycle"
	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }

func TestConfigValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  lifecycle.Config
		want string
	}{
		{"no url", lifecycle.Config{}, "AdminURL is required"},
		{"bad fraction", lifecycle.Config{AdminURL: "postgres://x/y", FadedFraction: 2}, "FadedFraction"},
		{"NaN fraction", lifecycle.Config{AdminURL: "postgres://x/y", FadedFraction: nan()}, "FadedFraction"},
		{"tiny size", lifecycle.Config{AdminURL: "postgres://x/y", DecaySizes: []int{10}}, "sizes"},
		{"per tenant", lifecycle.Config{AdminURL: "postgres://x/y", DerivePerTenant: 501}, "DerivePerTenant"},
		{"dim", lifecycle.Config{AdminURL: "postgres://x/y", Dim: -3}, "Dim"},
	}
	for _, tc := range cases {
		_, err := lifecycle.Run(context.Background(), &tc.cfg)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

func nan() float64 {
	var z float64
	return z / z
}

// A small run measures every figure against its baseline and writes both result files.
func TestRunSmall(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := lifecycle.Run(ctx, &lifecycle.Config{
		AdminURL: zbtest.AdminURL(t), DecaySizes: []int{400},
		SleepSizes: []int{100, 200}, MaintSizes: []int{1000}, DeriveTenants: 2, DerivePerTenant: 40, Repeats: 1,
	})
	require.NoError(t, err)

	require.Len(t, res.Decay, 1)
	d := res.Decay[0]
	require.Equal(t, 4, d.Faded, "1% of 400")
	require.Equal(t, d.Faded, d.Examined, "decay examines exactly the faded memories")
	require.Equal(t, d.Faded, d.Archived+d.Rescheduled)
	require.Positive(t, d.Ratio)
	require.Equal(t, d.Ratio <= lifecycle.DecayTargetRatio, d.Met)
	// At 400 rows the planner rightly prefers sequential scans; the row count is only
	// meaningful at the benchmark's sizes (coordinator's TestDecayDueTouchesOnlyFaded proves it
	// with the index plans).
	require.Positive(t, d.RowsRead)

	require.Len(t, res.Sleep, 2)
	require.InDelta(t, 1, res.Sleep[0].Ratio, 1e-12)
	require.Nil(t, res.Sleep[0].Met, "the first size is the baseline")
	require.NotNil(t, res.Sleep[1].Met)
	require.InDelta(t, lifecycle.SleepTarget(2), res.Sleep[1].Target, 1e-12)
	require.Equal(t, res.Sleep[1].Ratio <= res.Sleep[1].Target, *res.Sleep[1].Met)
	require.InDelta(t, res.Sleep[1].Ratio, res.Sleep[1].StepRatio, 1e-12, "two sizes: the step is the ratio")
	require.Equal(t, 200, res.Sleep[1].Episodes, "every stored memory is a recent episode")
	require.Equal(t, 1, res.Sleep[1].Rounds)
	require.Positive(t, res.Sleep[1].EdgesBefore, "derivation made edges before the sleep")
	require.Equal(t, res.Sleep[1].Sleep, res.Sleep[1].RoundP50, "one round: its time is the sleep's")
	require.Equal(t, res.Sleep[1].RoundP50, res.Sleep[1].RoundMax)
	// The test cluster preloads pg_stat_statements: the setup's statements are the store's copy
	// and derivation's, the rounds' sleep's own, none of the setup's, at most eight a list, the
	// largest total first.
	require.Empty(t, res.Sleep[1].StatementsUnavailable)
	setup, rounds := statementTexts(res.Sleep[1].SetupStatements), statementTexts(res.Sleep[1].SleepStatements)
	require.Contains(t, setup, "name: LcDeriveWriteMany ")
	require.Contains(t, rounds, "-- name: ")
	for _, ss := range [][]stmtstats.Statement{res.Sleep[1].SetupStatements, res.Sleep[1].SleepStatements} {
		require.LessOrEqual(t, len(ss), 8)
		require.True(t, slices.IsSortedFunc(ss, func(a, b stmtstats.Statement) int { return cmp.Compare(b.TotalMS, a.TotalMS) }))
	}
	require.NotContains(t, rounds, "LcDeriveWriteMany", "the rounds' statistics start after the setup")
	require.NotContains(t, rounds, `copy "zb"."memory"`)

	// Review reads each due card and its memory through indexes only; propagation works on
	// exactly the seeds' trees.
	require.Len(t, res.Maint, 1)
	m := res.Maint[0]
	require.Equal(t, 10, m.Due, "1% of 1000")
	require.Equal(t, m.Due, m.Reviewed)
	require.Equal(t, int64(4*m.Due), m.ReviewRowsRead, "two rows of each table per due card (the candidate scan and the write): %v", m.ReviewReads)
	require.Zero(t, m.ReviewSeqScans)
	require.Equal(t, lifecycle.MaintSeeds*(1+lifecycle.MaintFanout+lifecycle.MaintFanout*lifecycle.MaintFanout), m.Nodes)
	require.Positive(t, m.ReviewRatio)
	require.Positive(t, m.PropagateRatio)

	require.NotNil(t, res.Derive)
	require.Equal(t, 80, res.Derive.Memories)
	require.Positive(t, res.Derive.Mentions)
	require.InDelta(t, res.Derive.DerivePerSecond/res.Derive.InsertPerSecond, res.Derive.Ratio, 1e-9)

	dir := t.TempDir()
	require.NoError(t, res.Write(dir))
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	var back lifecycle.Results
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, res.Decay[0].Faded, back.Decay[0].Faded)
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	require.NoError(t, err)
	require.True(t, strings.Contains(string(md), "## Derive"))
}

// statementTexts joins the statements' texts, one a line.
func statementTexts(ss []stmtstats.Statement) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Query + "\n")
	}
	return b.String()
}

// TestSleepTarget: 12× per tenfold step, compounded; proportional cost passes at every size and
// a quadratic one fails from twice the first size on.
func TestSleepTarget(t *testing.T) {
	require.InDelta(t, 1, lifecycle.SleepTarget(1), 1e-12)
	require.InDelta(t, 12, lifecycle.SleepTarget(10), 1e-9)
	require.InDelta(t, 144, lifecycle.SleepTarget(100), 1e-9)
	require.InDelta(t, 1728, lifecycle.SleepTarget(1000), 1e-6)
	for _, s := range []float64{2, 5, 10, 30, 100, 1000} {
		require.Greater(t, lifecycle.SleepTarget(s), s, "proportional passes at %v×", s)
		require.Less(t, lifecycle.SleepTarget(s), s*s, "quadratic fails at %v×", s)
	}
	// The 100k run of 4 December (8.19 s over 0.071 s at 1k): 115.7× ≤ 144×, met; the 3
	// December run (222 s over 0.06 s, ≈ 3 700×) fails.
	require.Less(t, 8.193/0.071, lifecycle.SleepTarget(100))
	require.Greater(t, 222/0.06, lifecycle.SleepTarget(100))
}
