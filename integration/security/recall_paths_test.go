package security

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/sql/schema"
)

// candRow is one row of zb.recall_candidates_model.
type candRow struct {
	id                         int64
	cosine, bm25, sessBM25     float64
	byVector, byLexical, byCtx bool
	prev, next, docCount       int64
}

// TestRecallCandidatePaths checks the access paths of 0014's zb.recall_candidates_model
// against the pre-0014 function (0010's, taken from 0014's down migration and created as
// zbref.recall_candidates_model) and against an exact ranking, for three tenant sizes:
//   - small (300 active memories ≤ 1000): the vector half exact through the tenant btree, the
//     lexical half from the postings (0018; before, the tenant btree) — rows identical to
//     0010's (ids, signals, neighbours, scores);
//   - large (1 100 > 1000): one HNSW scan for the vector half, the postings for the lexical half;
//   - larger (6 100 > 5 000, the postings path): the lexical half through zb.recall_lexical /
//     recall_lexical_scan, which since 0018 reads the query terms' postings
//     (zb.memory_posting) and ranks exactly (from 0015 to 0017 it estimated the frequency of
//     common terms and scored only part of the matches; deep recall still does).
//
// For the 1 100 and the 6 100 tenant the lexical candidates and every score are identical to
// 0010's; for deep recall of the 6 100 tenant (the GIN path, every query term common there)
// each layer's top 3 by 0010's exact BM25 is among the lexical candidates and the shared
// candidates' BM25 is within 10 % of the exact one.
// The vector candidates reach recall@8 ≥ 0.95 against the exact per-layer top 8. Each is called
// as the superuser (invoker functions) and as a zb_app login bound to the tenant (the SECURITY
// DEFINER functions): both give the same rows.
func TestRecallCandidatePaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const small, large = "paths-small", "paths-large"
	storeFrom := func(tenant string, from, n int) {
		got, err := e.co.StoreBatch(ctx, pItems(tenant, from, n))
		require.NoError(t, err)
		require.EqualValues(t, n, got)
	}
	storeFrom(small, 0, 300)
	storeFrom(large, 0, 1100)

	down, err := schema.FS.ReadFile("0014_perf.down.sql")
	require.NoError(t, err)
	const head = "CREATE OR REPLACE FUNCTION zb.recall_candidates_model("
	src := string(down)
	i := strings.Index(src, head)
	require.GreaterOrEqual(t, i, 0)
	j := strings.Index(src[i:], "\n$$;")
	require.Positive(t, j)
	ref := "CREATE FUNCTION zbref.recall_candidates_model(" + src[i+len(head):i+j] + "\n$$;"
	_, err = e.super.Exec(ctx, "CREATE SCHEMA zbref")
	require.NoError(t, err)
	_, err = e.super.Exec(ctx, ref)
	require.NoError(t, err)

	app, _ := e.login(t, "app", small, large)
	var owner string
	require.NoError(t, e.super.QueryRow(ctx, `SELECT proowner::regrole::text FROM pg_proc
		WHERE oid = 'zb.recall_vector'::regproc`).Scan(&owner))
	require.Equal(t, e.role(t, "app")[:strings.LastIndex(e.role(t, "app"), "_")]+"_search", owner,
		"the vector definer is owned by the search role (migrated as superuser)")

	var layers []string
	for _, l := range retrieval.Layers() {
		layers = append(layers, string(l))
	}
	now := t0.Add(24 * 3600 * 1e9)
	model := e.emb.Model()
	const k = 8
	deep := false
	call := func(tx pgx.Tx, fn, tenant, q string) []candRow {
		t.Helper()
		vs, err := e.emb.Embed(ctx, []string{q})
		require.NoError(t, err)
		vec := vecText(vs[0])
		terms := textproc.Terms(q, textproc.DetectLang(q))
		rows, err := tx.Query(ctx, `SELECT id, cosine, bm25, by_vector, by_lexical, by_context, coalesce(prev_id, 0),
			coalesce(next_id, 0), session_bm25, doc_count
			FROM `+fn+`($1, $2::vector, $3, $4::zb.memory_layer[], $5, $6, NULL, NULL, NULL, NULL, $8, $7) ORDER BY id`,
			tenant, vec, terms, layers, k, now, model, deep)
		require.NoError(t, err)
		var out []candRow
		for rows.Next() {
			var r candRow
			require.NoError(t, rows.Scan(&r.id, &r.cosine, &r.bm25, &r.byVector, &r.byLexical, &r.byCtx, &r.prev, &r.next,
				&r.sessBM25, &r.docCount))
			out = append(out, r)
		}
		require.NoError(t, rows.Err())
		return out
	}
	exactVector := func(tenant, q string) map[int64]bool {
		t.Helper()
		vs, err := e.emb.Embed(ctx, []string{q})
		require.NoError(t, err)
		rows, err := e.super.Query(ctx, `SELECT id FROM (
			SELECT id, row_number() OVER (PARTITION BY layer ORDER BY (embedding <=> $2::vector) + 0, id) AS rn
			FROM zb.memory WHERE tenant_id = $1 AND status = 'active' AND embedding IS NOT NULL) x WHERE rn <= $3`,
			tenant, vecText(vs[0]), k)
		require.NoError(t, err)
		out := map[int64]bool{}
		for rows.Next() {
			var id int64
			require.NoError(t, rows.Scan(&id))
			out[id] = true
		}
		require.NoError(t, rows.Err())
		return out
	}
	super := func(fn, tenant, q string) []candRow {
		var out []candRow
		inTenant(t, e.super, "", func(tx pgx.Tx) { out = call(tx, fn, tenant, q) })
		return out
	}
	asApp := func(tenant, q string) []candRow {
		var out []candRow
		inTenant(t, app, tenant, func(tx pgx.Tx) { out = call(tx, "zb.recall_candidates_model", tenant, q) })
		return out
	}
	queries := []string{
		"what did Greta repair in Lyon?", "who painted the blue kettle", "Ines borrowed an old lamp",
		"where was the small bicycle sold", "Hiro cleaned the green window in Turku",
	}
	check := func(tenant, phase string, minDocs, maxDocs int64, exact, lexApprox bool) {
		hit, total := 0, 0
		for _, q := range queries {
			want := super("zbref.recall_candidates_model", tenant, q)
			got := super("zb.recall_candidates_model", tenant, q)
			require.NotEmpty(t, got, "%s %s %q", phase, tenant, q)
			require.Equal(t, got, asApp(tenant, q), "%s %q: zb_app (definer path) and superuser give the same candidates", phase, q)
			require.GreaterOrEqual(t, got[0].docCount, minDocs, phase)
			require.LessOrEqual(t, got[0].docCount, maxDocs, phase)
			if exact {
				require.Equal(t, len(want), len(got), "%s %q", phase, q)
				for x := range want {
					w, g := want[x], got[x]
					require.Equal(t, [4]int64{w.id, w.prev, w.next, w.docCount}, [4]int64{g.id, g.prev, g.next, g.docCount}, "%s %q", phase, q)
					require.Equal(t, [3]bool{w.byVector, w.byLexical, w.byCtx}, [3]bool{g.byVector, g.byLexical, g.byCtx}, "%s %q id %d", phase, q, g.id)
					require.InDelta(t, w.cosine, g.cosine, 1e-9)
					require.InDelta(t, w.bm25, g.bm25, 1e-9)
					require.InDelta(t, w.sessBM25, g.sessBM25, 1e-9)
				}
				continue
			}
			wb := map[int64]candRow{}
			for _, w := range want {
				wb[w.id] = w
			}
			if !lexApprox {
				// Lexical half identical to 0010's, every shared candidate scored the same.
				require.Equal(t, lexIDs(want), lexIDs(got), "%s %q: lexical candidates", phase, q)
			} else {
				gotLex := map[int64]bool{}
				for _, id := range lexIDs(got) {
					gotLex[id] = true
				}
				for _, id := range topLexical(t, e, tenant, want, 3) {
					require.True(t, gotLex[id], "%s %q: memory %d, in its layer's exact BM25 top 3, is a lexical candidate", phase, q, id)
				}
			}
			for _, g := range got {
				if w, ok := wb[g.id]; ok {
					if lexApprox {
						require.InEpsilon(t, w.bm25, g.bm25, 0.1, "%s %q id %d: BM25 with estimated frequencies", phase, q, g.id)
					} else {
						require.InDelta(t, w.bm25, g.bm25, 1e-9)
					}
					require.InDelta(t, w.cosine, g.cosine, 1e-9)
				}
			}
			ex := exactVector(tenant, q)
			for _, g := range got {
				if g.byVector && ex[g.id] {
					hit++
				}
			}
			total += len(ex)
		}
		if !exact {
			r := float64(hit) / math.Max(1, float64(total))
			t.Logf("%s: vector candidates recall@%d against exact %.3f (%d of %d)", phase, k, r, hit, total)
			require.GreaterOrEqual(t, r, 0.95, phase)
		}
	}
	check(small, "small tenant (btree vector, postings lexical; exact)", 300, 300, true, false)
	check(large, "large tenant (HNSW + postings lexical)", 1100, 1100, false, false)
	// 5 000 more memories: more than 5000 documents, the lexical half reads the postings and is
	// exact; deep recall takes the GIN path, which estimates.
	storeFrom(large, 1100, 5000)
	check(large, "large tenant (HNSW + postings lexical)", 6100, 6100, false, false)
	deep = true
	check(large, "large tenant, deep (HNSW + GIN lexical)", 6100, 6100, false, true)
}

// topLexical returns, per layer, the ids of the n lexical candidates of rs with the highest BM25
// (ties by id), the layers read from zb.memory.
func topLexical(t *testing.T, e *env, tenant string, rs []candRow, n int) []int64 {
	t.Helper()
	byLayer := map[string][]candRow{}
	for _, r := range rs {
		if !r.byLexical {
			continue
		}
		var layer string
		require.NoError(t, e.super.QueryRow(ctxT(t), `SELECT layer::text FROM zb.memory WHERE tenant_id = $1 AND id = $2`,
			tenant, r.id).Scan(&layer))
		byLayer[layer] = append(byLayer[layer], r)
	}
	var out []int64
	for _, l := range byLayer {
		sort.Slice(l, func(a, b int) bool { return l[a].bm25 > l[b].bm25 || (l[a].bm25 == l[b].bm25 && l[a].id < l[b].id) })
		for i := 0; i < len(l) && i < n; i++ {
			out = append(out, l[i].id)
		}
	}
	return out
}

func lexIDs(rs []candRow) []int64 {
	var out []int64
	for _, r := range rs {
		if r.byLexical {
			out = append(out, r.id)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

func vecText(v []float32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// pItems are memories from..from+n-1 of a generated tenant in three layers, each sentence built
// from its number (so the same numbers give the same texts in any tenant).
func pItems(tenant string, from, n int) []coordinator.StoreInput {
	items := make([]coordinator.StoreInput, 0, n)
	layers := []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}
	for i := from; i < from+n; i++ {
		items = append(items, coordinator.StoreInput{
			TenantID: tenant, Layer: layers[i%3],
			Content: fmt.Sprintf("%s %s the %s %s in %s", pName(i), pVerb(i/11), pAdj(i/(11*13)), pObj(i/(11*13*7)), pPlace(i)),
		})
	}
	return items
}

func pName(i int) string {
	return []string{"Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemal"}[i%11]
}

func pVerb(i int) string {
	return []string{
		"repaired", "painted", "borrowed", "sold", "cleaned", "lost", "found", "bought", "moved", "hid",
		"gave away", "measured", "photographed",
	}[i%13]
}

func pAdj(i int) string {
	return []string{"blue", "old", "small", "green", "heavy", "broken", "shiny"}[i%7]
}

func pObj(i int) string {
	return []string{"kettle", "lamp", "bicycle", "window", "chair", "clock", "ladder", "radio"}[i%8]
}

func pPlace(i int) string {
	return []string{"Lyon", "Porto", "Graz", "Turku", "Ghent", "Bergen"}[i%6]
}
