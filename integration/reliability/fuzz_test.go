package reliability

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

// fuzzDB returns a fresh migrated database for a fuzz target and a coordinator on it. Fuzz
// workers are child processes of the test binary: the first process publishes its server's
// URL in ZB_TEST_DATABASE_URL, so the workers create their databases on it instead of each
// starting a server.
func fuzzDB(f *testing.F) (*pgxpool.Pool, *coordinator.Coordinator) {
	f.Helper()
	if os.Getenv("ZB_TEST_DATABASE_URL") == "" {
		require.NoError(f, os.Setenv("ZB_TEST_DATABASE_URL", zbtest.AdminURL(f)))
	}
	_, pool := db(f)
	return pool, newCoordinator(f, pool, nil)
}

// fuzzCallTimeout bounds one call of a fuzz target: a hang is a failure too.
const fuzzCallTimeout = 20 * time.Second

// typed reports whether err carries one of the coordinator's sentinels.
func typed(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return true
		}
	}
	return false
}

// memCount counts a tenant's memories.
func memCount(t *testing.T, pool *pgxpool.Pool, tenant string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM zb.memory WHERE tenant_id = $1`, tenant).Scan(&n))
	return n
}

// FuzzStore stores arbitrary content, layer, kind, context, core label, external id, event time
// and importance against a live database. Every call either stores the content verbatim (one
// new memory, or an upsert of a core label) or returns an error carrying a coordinator sentinel
// and writes nothing; it never panics.
func FuzzStore(f *testing.F) {
	for _, s := range []struct {
		content, layer, kind, ctx, label, ext string
		occurred                              int64
		importance                            float64
	}{
		{"Alice's favourite colour is green", "", "", "", "", "", 0, 0},
		{"Yesterday we hiked up the hill", "", "", "", "", "e1", 1_700_000_000, 0.5},
		{"My name is Sam", "core", "", "", "name", "", 0, 1},
		{"How to deploy: build, push", "procedural", "skill", "work", "", "", 0, 0},
		{"\xff\xfe", "", "", "", "", "", 0, 0},
		{"a\x00b", "", "", "", "", "", 0, 0},
		{"🧠 👩‍👩‍👧 שלום", "episodic", "", "personal", "", "", -62135596800, 0},
		{"9999 years ago", "", "", "", "", "", 253402214400, 0},
		{"'; DROP TABLE zb.memory; --", "limbic", "poem", "Bad Ctx", "", "", 0, math.NaN()},
		{" ", "", "", "", "", "", 0, 2},
	} {
		f.Add(s.content, s.layer, s.kind, s.ctx, s.label, s.ext, s.occurred, s.importance)
	}
	pool, co := fuzzDB(f)
	const ten = "fz"
	f.Fuzz(func(t *testing.T, content, layer, kind, cx, label, ext string, occurred int64, importance float64) {
		in := coordinator.StoreInput{
			TenantID: ten, Content: content, Layer: coordinator.Layer(layer), Kind: kind,
			Context: cx, CoreLabel: label, ExternalID: ext, Importance: importance,
		}
		if occurred != 0 {
			at := time.Unix(occurred%(400_000*365*86400), 0).UTC()
			in.OccurredAt = &at
		}
		before := memCount(t, pool, ten)
		res, err := co.Store(context.Background(), in)
		after := memCount(t, pool, ten)
		if err != nil {
			require.True(t, typed(err), "an untyped error: %v", err)
			require.Equal(t, before, after, "a failed store wrote nothing: %v", err)
			return
		}
		switch res.Outcome {
		case coordinator.OutcomeCreated:
			require.Equal(t, before+1, after)
		default:
			require.Equal(t, coordinator.LayerCore, res.Layer)
			require.Equal(t, before, after)
		}
		var got string
		require.NoError(t, pool.QueryRow(context.Background(), `SELECT content FROM zb.memory WHERE tenant_id = $1 AND id = $2`, ten, res.ID).Scan(&got))
		require.Equal(t, content, got, "stored verbatim")
	})
}

// FuzzRecall recalls arbitrary queries with arbitrary k, layer, as-of time and options against
// a live database with a few memories. Every call returns either at most k results, best first,
// with finite scores, or an error carrying a coordinator sentinel; it never panics.
func FuzzRecall(f *testing.F) {
	for _, s := range []struct {
		query, layer string
		k            int
		asOf         int64
		deep, ro     bool
	}{
		{"What is Alice's favourite colour?", "", 0, 0, false, true},
		{"what happened 9999 years ago?", "episodic", 3, 0, true, false},
		{"wie deploye ich?", "procedural", 1000, 0, false, false},
		{"", "", -1, 0, false, true},
		{"\xff", "limbic", 1001, -62135596800, false, true},
		{"?!…", "", 5, 253402214400, true, true},
		{"' OR 1=1; --", "core", 1, 1, false, false},
	} {
		f.Add(s.query, s.layer, s.k, s.asOf, s.deep, s.ro)
	}
	_, co := fuzzDB(f)
	const ten = "fr"
	ctx := context.Background()
	for _, c := range []string{
		"Alice's favourite colour is green", "Yesterday Bob and Alice went to the lake",
		"How to deploy: build the image, then push it", "🧠 Grace's bee notes 🐝", "ليلى تعيش في القاهرة",
	} {
		_, err := co.Store(ctx, coordinator.StoreInput{TenantID: ten, Content: c})
		require.NoError(f, err)
	}
	_, err := co.Store(ctx, coordinator.StoreInput{TenantID: ten, Layer: coordinator.LayerCore, CoreLabel: "name", Content: "My name is Sam"})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, query, layer string, k int, asOf int64, deep, readOnly bool) {
		opts := &coordinator.RecallOpts{K: k, Deep: deep, ReadOnly: readOnly}
		if layer != "" {
			opts.Layers = []coordinator.Layer{coordinator.Layer(layer)}
		}
		if asOf != 0 {
			at := time.Unix(asOf%(400_000*365*86400), 0).UTC()
			opts.AsOf = &at
		}
		rec, err := co.Recall(ctx, ten, query, opts)
		if err != nil {
			require.True(t, typed(err), "an untyped error: %v", err)
			return
		}
		want := k
		if want == 0 {
			want = 5
		}
		require.LessOrEqual(t, len(rec.Results), want)
		for i, r := range rec.Results {
			require.False(t, math.IsNaN(r.Score) || math.IsInf(r.Score, 0), "score %v", r.Score)
			if i > 0 {
				require.LessOrEqual(t, r.Score, rec.Results[i-1].Score+1e-12, "best first")
			}
		}
	})
}

// FuzzImport imports arbitrary JSON Lines (seeded with a real export and broken variants of
// it) into a live database. Every call either succeeds — and importing the same input again
// adds nothing — or returns an error carrying a coordinator sentinel and writes nothing; it
// never panics.
func FuzzImport(f *testing.F) {
	pool, co := fuzzDB(f)
	ctx := context.Background()
	for _, c := range []string{"Alice's favourite colour is green", "Yesterday Bob and Alice went to the lake"} {
		_, err := co.Store(ctx, coordinator.StoreInput{TenantID: "src", Content: c})
		require.NoError(f, err)
	}
	_, err := co.Store(ctx, coordinator.StoreInput{TenantID: "src", Layer: coordinator.LayerCore, CoreLabel: "name", Content: "My name is Sam"})
	require.NoError(f, err)
	var buf bytes.Buffer
	_, err = co.Export(ctx, "src", &buf, nil)
	require.NoError(f, err)
	export := buf.String()
	lines := strings.SplitAfter(export, "\n")
	f.Add(export, false)
	f.Add(lines[0], false)
	f.Add(strings.Join(lines[1:], ""), true)
	f.Add(strings.Replace(export, `"layer":"semantic"`, `"layer":"limbic"`, 1), false)
	f.Add(strings.Replace(export, `"content":"`, `"content":"\u0000`, 1), false)
	f.Add(export[:len(export)/2], false)
	f.Add("{\"type\":\"memory\"}\n[1,2]\n\xff\n", false)
	f.Add("", true)
	n := 0
	f.Fuzz(func(t *testing.T, data string, dryRun bool) {
		n++
		ten := "fi" + strconv.Itoa(n) // a fresh tenant: no label or key of an earlier input interferes
		ctx, cancel := context.WithTimeout(ctx, fuzzCallTimeout)
		defer cancel()
		before := memCount(t, pool, ten)
		rep, err := co.Import(ctx, ten, strings.NewReader(data), &coordinator.ImportOpts{DryRun: dryRun})
		require.NoError(t, ctx.Err(), "the import returns within %v", fuzzCallTimeout)
		after := memCount(t, pool, ten)
		if err != nil {
			require.True(t, typed(err), "an untyped error: %v", err)
			require.Equal(t, before, after, "a failed import wrote nothing: %v", err)
			return
		}
		if dryRun {
			require.Equal(t, before, after, "a dry run writes nothing")
			return
		}
		require.Equal(t, before+int(rep.Imported.Memories), after)
		again, err := co.Import(ctx, ten, strings.NewReader(data), nil)
		require.NoError(t, err, "importing the same input again")
		require.Zero(t, again.Imported.Memories, "a repeated import adds nothing")
		require.Equal(t, after, memCount(t, pool, ten))
	})
}
