package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/perf"
	"github.com/zenbrain/zb/internal/zbtest"
)

// TestMain checks for leaked goroutines after the tests (zbtest.Main runs goleak).
func TestMain(m *testing.M) { zbtest.Main(m) }

// The program at tiny sizes measures every figure against its baseline and writes both files.
// It takes over a minute on a loaded 2-core machine, so it runs only with ZB_PERF_SMOKE=1.
func TestRunTiny(t *testing.T) {
	t.Parallel()
	if os.Getenv("ZB_PERF_SMOKE") == "" {
		t.Skip("set ZB_PERF_SMOKE=1 to run the perf program at tiny sizes (about 90 s here)")
	}
	admin := zbtest.AdminURL(t)
	dir := t.TempDir()
	// The load test's worker is the real zbworker program, run as a separate process.
	workerBin := filepath.Join(dir, "zbworker")
	build := exec.Command("go", "build", "-o", workerBin, "github.com/zenbrain/zb/cmd/zbworker")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	var stdout, stderr bytes.Buffer
	code := run([]string{
		"-worker-bin", workerBin, "-out", dir, "-sizes", "1200", "-tenants", "3", "-queries", "8", "-filtered-queries", "4",
		"-partial-max", "1200", "-halfvec-max", "1200", "-import", "100", "-batch", "50", "-stores", "10", "-clients", "4", "-pool", "4", "-duration", "1s",
		"-dim", "32", "-recall-split", "500", "-lexical-scorer", "sql",
	},
		func(k string) string {
			if k == "ZB_DATABASE_URL" {
				return admin
			}
			return ""
		}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	require.Contains(t, stdout.String(), "## Recall latency")

	require.Contains(t, stdout.String(), "Resident set of the zbworker process")

	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	var res perf.Results
	require.NoError(t, json.Unmarshal(b, &res))

	// The test harness's server is started by internal/pgcluster, with its allocator settings;
	// another server (ZB_TEST_DATABASE_URL) reports what it has.
	if os.Getenv("ZB_TEST_DATABASE_URL") == "" {
		require.Contains(t, res.Machine.ServerMalloc, "MALLOC_MMAP_THRESHOLD_=33554432")
		require.Contains(t, res.Machine.ServerMalloc, "MALLOC_TRIM_THRESHOLD_=67108864")
		require.Contains(t, stdout.String(), "allocator: MALLOC_")
	}
	require.NotEmpty(t, res.Machine.Settings["huge_pages"])
	require.NotEmpty(t, res.Machine.HugePages, "this machine's huge pages, from /proc/meminfo")
	require.Len(t, res.Recall, 2, "the multi-tenant and the single-tenant layout")
	require.Equal(t, 3, res.Recall[0].Tenants)
	require.Equal(t, 1, res.Recall[1].Tenants)
	// -recall-split 500: the one tenant of 1 200 memories reads its halves on two connections in
	// every timed recall (its size is known from the warm-up), tenants of 400 in none.
	require.EqualValues(t, 500, res.Config["recall_split_min_docs"])
	require.Zero(t, res.Recall[0].Split)
	require.Equal(t, 1.0, res.Recall[1].Split)
	// Where the time went: the split layout has its halves and join, the other only candidates.
	p0, p1 := res.Recall[0].Parts, res.Recall[1].Parts
	require.Equal(t, 8, p0.Candidates.N)
	require.Zero(t, p0.Slower.N)
	require.Equal(t, 8, p1.Slower.N)
	require.Positive(t, p1.VectorHalf.P50)
	require.Positive(t, p1.LexicalHalf.P50)
	require.Positive(t, p1.Join.P50)
	require.InDelta(t, p1.Slower.P50/res.Recall[1].Bare.P50, p1.SlowerRatio, 1e-9)
	require.GreaterOrEqual(t, p1.Candidates.P50, p1.Slower.P50, "the candidates include the slower half")
	require.Equal(t, 8, p0.SideEffects.N, "the full recalls' side effects")
	require.Contains(t, stdout.String(), "Where a read-only recall's time goes")
	for _, f := range res.Recall {
		require.GreaterOrEqual(t, f.Visible, 0.995, "the visibility map is complete before the timed recalls")
		require.Positive(t, f.VacuumRounds)
		require.Equal(t, "sql", f.LexicalScorer, "-lexical-scorer sql reached the benchmark databases")
		require.Equal(t, 8, f.Bare.N)
		require.Equal(t, 8, f.Full.N)
		require.Positive(t, f.Bare.P50)
		require.InDelta(t, f.Full.P50/f.Bare.P50, f.P50Ratio, 1e-9)
		require.InDelta(t, float64(perf.K), f.BareResults, 1e-9, "every tenant holds more than K memories")
		require.Equal(t, "m = 16, ef_construction = 64", f.HNSW, "the migration's HNSW parameters")
		require.Positive(t, f.IndexMiB)
		// The bare query held to the accuracy bar: calibrated on the filtered questions from
		// the bare query's own ef_search up; timed when it needed more, else the bare query.
		a := f.Accurate
		require.NotNil(t, a)
		require.Equal(t, 4, a.Queries)
		require.NotEmpty(t, a.Ladder)
		require.Equal(t, perf.EfLadder[0], a.Ladder[0].EfSearch)
		require.Equal(t, a.Ladder[len(a.Ladder)-1].EfSearch, a.EfSearch)
		require.Equal(t, a.EfSearch != perf.EfLadder[0], a.Timed)
		if a.Timed {
			require.Equal(t, 8, a.Latency.N)
		} else {
			require.Equal(t, f.Bare, a.Latency)
			require.InDelta(t, f.ReadOnlyP50Ratio, a.ReadOnlyP50Ratio, 1e-9)
		}
		require.InDelta(t, f.Full.P99/a.Latency.P99, a.P99Ratio, 1e-9)
	}
	require.Contains(t, stdout.String(), "Recall against the bare query at the accuracy bar")
	// Recall's least vector work, timed with the others: an exact pass in tenants of 400, one
	// HNSW scan at recall's ef_search in the tenant of 1 200; its candidates checked against
	// recall's vector half on each warm-up question, every layer's top K (three layers of
	// 80–200 rows each; among the 1 200 rows' 100 nearest, possibly fewer of the smallest).
	for i, kind := range []string{perf.FloorExact, perf.FloorScan} {
		f := res.Recall[i]
		fl := f.Floor
		require.NotNil(t, fl)
		require.Equal(t, kind, fl.Kind)
		require.Equal(t, 8, fl.Checked, "every warm-up question")
		require.Equal(t, 8, fl.Latency.N)
		require.InDelta(t, fl.Latency.P50/f.Bare.P50, fl.P50Ratio, 1e-9)
		require.InDelta(t, f.ReadOnly.P50/fl.Latency.P50, fl.RecallP50Ratio, 1e-9)
		require.LessOrEqual(t, fl.Rows, float64(3*perf.K))
		require.Greater(t, fl.Rows, float64(2*perf.K))
	}
	require.InDelta(t, float64(3*perf.K), res.Recall[0].Floor.Rows, 1e-9, "an exact pass gives each layer its top K")
	require.Zero(t, res.Recall[0].Floor.EfSearch)
	require.Equal(t, 100, res.Recall[1].Floor.EfSearch, "zb.recall_ef_search(1200)")
	// At the ef_search of the one scan's per-layer ladder, where it reached the bar, alternated
	// with the bare query over three passes of the four fresh questions; never for an exact pass.
	require.Nil(t, res.Recall[0].Floor.AtBar)
	if l := res.Recall[1].LayerLadder; l.Reached {
		at := res.Recall[1].Floor.AtBar
		require.NotNil(t, at)
		require.Equal(t, l.EfSearch, res.Recall[1].Floor.BarEf)
		require.Equal(t, 4*perf.InterleaveRounds, at.N)
		require.InDelta(t, at.P50/at.OtherP50, at.Ratio, 1e-9)
	} else {
		require.Nil(t, res.Recall[1].Floor.AtBar)
	}
	require.Contains(t, stdout.String(), "Recall's least vector work as one plain statement")
	require.Contains(t, stdout.String(), "HNSW index (`zb.memory_embedding_hnsw_idx`): 1200 in 3: m = 16, ef_construction = 64")
	// The per-layer ladder of recall's one-scan shape: only where recall's vector half walks
	// the graph (above 1 000 active memories), from the bare query's ef_search up.
	require.Nil(t, res.Recall[0].LayerLadder, "tenants of 400: recall's vector half is exact")
	l := res.Recall[1].LayerLadder
	require.NotNil(t, l)
	require.Equal(t, 4, l.Queries)
	require.Equal(t, 100, l.RuleEf, "zb.recall_ef_search(1200)")
	require.Equal(t, perf.EfLadder[0], l.Steps[0].EfSearch)
	require.Equal(t, l.Steps[len(l.Steps)-1].EfSearch, l.EfSearch)
	require.Contains(t, stdout.String(), "Per-layer accuracy of recall's one HNSW scan")
	// Partial per-layer graphs (-partial-max 1200): their ladder where recall's vector half walks
	// a graph, each layer's graph scanned in the plan.
	require.Nil(t, res.Recall[0].PartialLadder, "tenants of 400: recall's vector half is exact")
	pl := res.Recall[1].PartialLadder
	require.NotNil(t, pl)
	require.Equal(t, 4, pl.Queries)
	require.Equal(t, perf.EfLadder[0], pl.Steps[0].EfSearch)
	require.Equal(t, pl.Steps[len(pl.Steps)-1].EfSearch, pl.EfSearch)
	for _, ly := range []string{"semantic", "episodic", "procedural"} {
		require.Contains(t, pl.Scan, "memory_embedding_hnsw_"+ly+"_idx")
	}
	require.GreaterOrEqual(t, pl.Steps[0].RecallAt10, 0.75, "an ef-100 scan of a 400-row graph is near-exhaustive at 32 dimensions")
	// Both statements at their bars, alternated: every question once per pass, each.
	require.NotNil(t, pl.Interleaved)
	require.Equal(t, 4*perf.InterleaveRounds, pl.Interleaved.N)
	require.InDelta(t, pl.Interleaved.P50/pl.Interleaved.OtherP50, pl.Interleaved.Ratio, 1e-9)
	require.Contains(t, stdout.String(), "Per-layer accuracy of partial per-layer HNSW graphs")
	// The one scan on a half-precision graph (-halfvec-max 1200): where recall's vector half
	// walks a graph, through that graph, and timed against the one scan.
	require.Nil(t, res.Recall[0].HalfvecLadder, "tenants of 400: recall's vector half is exact")
	hl := res.Recall[1].HalfvecLadder
	require.NotNil(t, hl)
	require.Equal(t, 4, hl.Queries)
	require.Contains(t, hl.Scan, "memory_embedding_hnsw_halfvec_idx")
	require.Positive(t, hl.IndexMiB)
	require.GreaterOrEqual(t, hl.Steps[0].RecallAt10, 0.75, "an ef-100 scan of a 1 200-row graph is near-exhaustive at 32 dimensions")
	require.NotNil(t, hl.Interleaved)
	require.Equal(t, 4*perf.InterleaveRounds, hl.Interleaved.N)
	require.Contains(t, stdout.String(), "Per-layer accuracy of recall's one scan on a half-precision graph")
	// Eight figures per layout: iterative off at ef 40, relaxed and strict at ef 100, relaxed at
	// ef 200, recall's own vector scan asked for the query's layer and for every layer, the
	// partial per-layer graphs at ef 100, and derive's nearest-fact search.
	require.Len(t, res.Filtered, 16)
	facts := 0
	for _, f := range res.Filtered {
		require.GreaterOrEqual(t, f.RecallAt10, 0.0)
		require.LessOrEqual(t, f.RecallAt10, 1.0)
		require.NotEmpty(t, f.Scan)
		if f.Setting == perf.NearestFactsSetting {
			// Tenants of 400 semantic-and-other memories are ranked exactly; the one tenant of
			// 1 200, through the graph at ef 100, is near-exhaustive at 32 dimensions: either way
			// zb.similar_semantic must agree with the benchmark's exact sort.
			facts++
			require.InDelta(t, 1.0, f.RecallAt10, 0.05, f)
			require.Equal(t, 4, f.Latency.N)
			require.Positive(t, f.MeanMatches)
		}
		if f.Setting == "strict, ef 100" || strings.HasPrefix(f.Setting, "recall's vector scan") {
			// On 1 200 rows of 32 dimensions an ef-100 strict iterative scan is near-exhaustive,
			// and recall's scan ranks 10·K of them per call: a low figure would mean the
			// comparison with the exact ids, or the every-layer scan's filter to the query's
			// layer, is broken.
			require.GreaterOrEqual(t, f.RecallAt10, 0.75, f)
		}
	}
	require.Equal(t, 2, facts, "one nearest-facts figure per layout")

	require.NotNil(t, res.Writes)
	require.Equal(t, 100, res.Writes.Rows)
	require.Positive(t, res.Writes.ImportRatio)
	require.Equal(t, 10, res.Writes.Store.N)

	require.NotNil(t, res.Load)
	require.Zero(t, res.Load.Errors, res.Load.FirstErrors)
	require.Positive(t, res.Load.Ops)
	require.True(t, res.Load.Worker)
	require.Equal(t, workerBin, res.Load.WorkerBinary)
	require.Empty(t, res.Load.RSSUnavailable)
	require.Positive(t, res.Load.RSSSamples)
	require.Greater(t, res.Load.RSSMiB, 1.0, "zbworker's resident set")
	require.True(t, res.Load.RSSMet, "zbworker under %d MiB: %.1f", perf.RSSTargetMiB, res.Load.RSSMiB)
	require.GreaterOrEqual(t, res.Load.RSSHWMMiB, res.Load.RSSMiB)
	require.Positive(t, res.Load.WorkerGoroutinesStart)
	require.Positive(t, res.Load.WorkerGoroutinesEnd)
	require.Positive(t, res.Load.WorkerConns, "the worker holds connections while it runs")
	require.LessOrEqual(t, res.Load.WorkerConns, res.Load.WorkerConnsLimit)
	require.Equal(t, "clean", res.Load.WorkerExit)
	// zbtest's throwaway cluster preloads pg_stat_statements (internal/pgcluster); a server
	// from ZB_TEST_DATABASE_URL may not, and then the reason is reported instead.
	require.True(t, len(res.Load.TopStatements) > 0 || res.Load.StatementsUnavailable != "")
}

func TestBesideSelf(t *testing.T) {
	t.Parallel()
	require.Empty(t, besideSelf("no-such-program-beside-the-test"))
	self, err := os.Executable()
	require.NoError(t, err)
	require.Equal(t, self, besideSelf(filepath.Base(self)), "the test binary is beside itself")
}
