package integration

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

const recallDim = 64

// bagEmbedder is a deterministic bag-of-stems embedder: each index term adds 1 to a hashed
// bucket; the vector is L2-normalized. A text without terms embeds to zeros.
type bagEmbedder struct{}

func (bagEmbedder) Dim() int      { return recallDim }
func (bagEmbedder) Model() string { return "bag" }
func (bagEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = bagVector(t)
	}
	return out, nil
}

func bagVector(t string) []float32 {
	v := make([]float32, recallDim)
	for _, term := range textproc.Terms(t, textproc.DetectLang(t)) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(term))
		v[h.Sum32()%recallDim]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n > 0 {
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
	}
	return v
}

// stepClock is a clock the test moves forward.
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time { return c.t }

// sqlRecallRow is one row of zb.recall.
type sqlRecallRow struct {
	ID         int64
	Score      float64
	Confidence float64
	Ret        float64
	Low, High  float64
}

// TestSQLRecallParity stores a crafted corpus through the Go coordinator (sessions with
// speakers, several layers, emotional content, accesses at different times, co-activation
// edges from earlier recalls), then compares coordinator.Recall (ReadOnly) with zb.recall on the
// same query embedding, terms, class and time: the same ids in the same order, scores within
// 1e-6. With the default SQL query terms (zb.query_terms) it compares the top-k id sets.
func TestSQLRecallParity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: recallDim})
	clk := &stepClock{t: time.Date(2024, 5, 8, 12, 0, 0, 0, time.UTC)}
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: bagEmbedder{}, Clock: clk})
	require.NoError(t, err)
	const tenant = "parity"

	s1, s2 := uuid.New(), uuid.New()
	corpus := []struct {
		content string
		layer   coordinator.Layer
		session *uuid.UUID
		speaker string
		advance time.Duration
	}{
		{"Caroline went to the LGBTQ support group on Sunday and felt accepted.", "", &s1, "Caroline", time.Hour},
		{"Melanie painted a sunrise over the lake last year.", "", &s1, "Melanie", time.Minute},
		{"Caroline is researching adoption agencies for her family plans.", "", &s1, "Caroline", time.Minute},
		{"Melanie took her kids camping in the mountains.", "", &s1, "Melanie", time.Minute},
		{"The support group meets every Sunday evening downtown.", "", &s1, "Caroline", time.Minute},
		{"Jon lost his job as a banker and wants to open a dance studio.", "", &s2, "Jon", 24 * time.Hour},
		{"Gina opened an online clothing store after losing her job.", "", &s2, "Gina", time.Minute},
		{"Jon is looking for a location for the dance studio in the city.", "", &s2, "Jon", time.Minute},
		{"Gina loves contemporary dance and helped Jon with the studio.", "", &s2, "Gina", time.Minute},
		{"Paris is the capital of France.", coordinator.LayerSemantic, nil, "", 48 * time.Hour},
		{"The Eiffel Tower in Paris was completed in 1889.", coordinator.LayerSemantic, nil, "", time.Hour},
		{"To reset the router, hold the button for ten seconds and wait for the lights.", coordinator.LayerProcedural, nil, "", time.Hour},
		{"To brew coffee, grind the beans, heat water to 94 degrees and pour slowly.", coordinator.LayerProcedural, nil, "", time.Hour},
		{"I was terrified and furious when the car crashed on the highway.", coordinator.LayerEpisodic, nil, "", 72 * time.Hour},
		{"We celebrated the wedding with a wonderful dinner by the lake.", coordinator.LayerEpisodic, nil, "", time.Hour},
		{"The dance studio opened with a big party and many guests.", coordinator.LayerEpisodic, nil, "", 5 * 24 * time.Hour},
		{"The dance studio opened with a big party and many happy guests!", coordinator.LayerEpisodic, nil, "", time.Minute},
		{"Coffee beans from Ethiopia taste fruity and bright.", coordinator.LayerSemantic, nil, "", 10 * 24 * time.Hour},
	}
	for _, m := range corpus {
		clk.t = clk.t.Add(m.advance)
		in := coordinator.StoreInput{TenantID: tenant, Content: m.content, Layer: m.layer, SessionID: m.session}
		if m.speaker != "" {
			in.Metadata = map[string]any{"speaker": m.speaker}
		}
		_, err := co.Store(ctx, in)
		require.NoError(t, err)
	}
	// Entities, mentions and Two-Factor edges of different weights, variances and ages.
	_, err = pool.Exec(ctx, `
		WITH e AS (
			INSERT INTO zb.entity (tenant_id, name, normalized_name, type, created_at, updated_at)
			SELECT $1, n, lower(n), 'thing', $2, $2
			FROM unnest(ARRAY['Caroline', 'Melanie', 'Jon', 'Gina', 'Paris', 'studio', 'coffee', 'lake']) n
			RETURNING id, name
		), m AS (
			INSERT INTO zb.mention (tenant_id, memory_id, entity_id)
			SELECT $1, mem.id, e.id FROM e JOIN zb.memory mem ON mem.tenant_id = $1 AND mem.content ILIKE '%' || e.name || '%'
		)
		INSERT INTO zb.edge (tenant_id, source_id, target_id, weight, variance, created_at, last_activated_at)
		SELECT $1, a.id, b.id, 0.3 + (a.id * 7 + b.id * 3) % 17 / 4.0, 0.05 + (a.id + b.id) % 9 / 2.0,
		       $2, $2 - ((a.id + b.id) % 5) * interval '9 days'
		FROM e a JOIN e b ON a.id < b.id AND (a.id + b.id) % 3 <> 0`, tenant, clk.t)
	require.NoError(t, err)

	// Recalls with side effects: accesses, stabilities and co-activation edges differ per memory.
	for _, q := range []string{"dance studio Jon", "support group Caroline", "coffee beans", "Paris Eiffel Tower"} {
		clk.t = clk.t.Add(6 * time.Hour)
		_, err := co.Recall(ctx, tenant, q, &coordinator.RecallOpts{K: 5})
		require.NoError(t, err)
	}
	clk.t = clk.t.Add(3 * 24 * time.Hour)
	now := clk.t

	queries := []string{
		"What did Caroline do at the support group?",
		"dance studio",
		"Where is the Eiffel Tower?",
		"How do I reset the router?",
		"Jon job banker",
		"coffee",
		"Melanie painting lake",
		"the car crash on the highway",
		"what about Gina and her store",
		"!!!",
	}
	exact, sets, boosted := 0, 0, 0
	maxDelta := 0.0
	for pass, q := range append(append([]string{}, queries...), queries...) {
		if pass == len(queries) {
			// Second pass: the ablation switches that recall honours are off.
			_, err := pool.Exec(ctx, `INSERT INTO zb.algorithm_switch (tenant_id, algorithm, enabled, updated_at)
				SELECT $1, a, false, $2 FROM unnest(ARRAY['decay', 'two_factor_hebbian', 'query_routing']) a`, tenant, now)
			require.NoError(t, err)
		}
		goRes, err := co.Recall(ctx, tenant, q, &coordinator.RecallOpts{K: 5, ReadOnly: true})
		require.NoError(t, err, q)
		require.Nil(t, goRes.Range, "query %q has a time range; pick another", q)
		var emb any
		if v := bagVector(q); vecNonZero(v) {
			emb = pgvector.NewVector(v)
		}
		terms := textproc.Terms(q, textproc.DetectLang(q))
		if terms == nil {
			terms = []string{}
		}
		got := sqlRecall(t, pool, `SELECT memory_id, score, confidence, retrievability, confidence_low, confidence_high
			FROM zb.recall($1, $2, $3::vector, 5, $4, $5, $6)`, tenant, q, emb, now, string(goRes.Class), terms)
		require.Len(t, got, len(goRes.Results), "query %q", q)
		for i, r := range goRes.Results {
			if r.Signals.Boost > 1 {
				boosted++
			}
			require.Equal(t, r.ID, got[i].ID, "query %q rank %d", q, i+1)
			d := math.Abs(r.Score - got[i].Score)
			maxDelta = max(maxDelta, d)
			require.LessOrEqual(t, d, 1e-6, "query %q rank %d score", q, i+1)
			require.InDelta(t, r.Confidence, got[i].Confidence, 1e-12)
			require.InDelta(t, r.Retrievability, got[i].Ret, 1e-9)
			require.InDelta(t, r.ConfidenceLow, got[i].Low, 1e-9)
			require.InDelta(t, r.ConfidenceHigh, got[i].High, 1e-9)
		}
		exact++
		if q == "dance studio" {
			// The two near-duplicate party episodes (token Jaccard 11/12 > 0.9) are both
			// candidates; deduplication keeps exactly one of them.
			party := 0
			for _, r := range goRes.Results {
				if strings.HasPrefix(r.Content, "The dance studio opened") {
					party++
				}
			}
			require.Equal(t, 1, party, "dedup should keep one party episode")
			var both int
			require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.recall($1, $2, $3::vector, 50, $4, $5, $6, p_candidates => 50)
				WHERE content LIKE 'The dance studio opened%'`, tenant, q, emb, now, string(goRes.Class), terms).Scan(&both))
			require.Equal(t, 1, both, "dedup in SQL keeps one party episode at any k")
		}

		// Default SQL query terms (PostgreSQL's Snowball): the same top-k set.
		def := sqlRecall(t, pool, `SELECT memory_id, score, confidence, retrievability, confidence_low, confidence_high
			FROM zb.recall($1, $2, $3::vector, 5, $4, $5)`, tenant, q, emb, now, string(goRes.Class))
		gIDs, sIDs := map[int64]bool{}, map[int64]bool{}
		for _, r := range goRes.Results {
			gIDs[r.ID] = true
		}
		for _, r := range def {
			sIDs[r.ID] = true
		}
		if len(gIDs) == len(sIDs) {
			same := true
			for id := range gIDs {
				same = same && sIDs[id]
			}
			if same {
				sets++
			}
		}
	}
	t.Logf("recall parity: %d/%d queries identical (ids, order, scores; max |Δscore| = %.3g; %d results boosted by an edge); "+
		"with zb.query_terms %d/%d have the same top-5 set", exact, 2*len(queries), maxDelta, boosted, sets, 2*len(queries))
	require.Positive(t, boosted, "the corpus should exercise the Two-Factor boost")
	require.GreaterOrEqual(t, sets, 2*len(queries)-4, "zb.query_terms should rarely change the top 5")
}

func vecNonZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

func sqlRecall(t *testing.T, pool *pgxpool.Pool, q string, args ...any) []sqlRecallRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), q, args...)
	require.NoError(t, err)
	defer rows.Close()
	var out []sqlRecallRow
	for rows.Next() {
		var r sqlRecallRow
		require.NoError(t, rows.Scan(&r.ID, &r.Score, &r.Confidence, &r.Ret, &r.Low, &r.High))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// TestSQLRememberForget checks zb.remember's routing, stability and errors, zb.forget's tenant
// check, and that zb.memory_live_now is zb.memory_live(now()).
func TestSQLRememberForget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

	tests := []struct {
		name      string
		layer     any
		label     any
		wantLayer string
		wantStab  *float64
		wantErr   string
	}{
		{"default semantic", nil, nil, "semantic", ptr(7.0), ""},
		{"episodic", "episodic", nil, "episodic", ptr(1.0), ""},
		{"working", "working", nil, "working", ptr(1.0), ""},
		{"procedural", "procedural", nil, "procedural", ptr(7.0), ""},
		{"core", "core", "name", "core", nil, ""},
		{"core without label", "core", nil, "", nil, "core_label"},
		{"label without core", "semantic", "x", "", nil, "core_label"},
		{"bad layer", "nope", nil, "", nil, "invalid input value"},
	}
	for _, tc := range tests {
		var id int64
		err := pool.QueryRow(ctx, `SELECT zb.remember('t1', 'The sky is blue today.', $1::zb.memory_layer,
			p_core_label => $2, p_now => $3)`, tc.layer, tc.label, at).Scan(&id)
		if tc.wantErr != "" {
			require.ErrorContains(t, err, tc.wantErr, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		var layer string
		var stab *float64
		var terms []string
		require.NoError(t, pool.QueryRow(ctx, `SELECT layer::text, stability, terms FROM zb.memory WHERE tenant_id = 't1' AND id = $1`,
			id).Scan(&layer, &stab, &terms), tc.name)
		require.Equal(t, tc.wantLayer, layer, tc.name)
		require.Equal(t, tc.wantStab, stab, tc.name)
		require.Equal(t, []string{"sky", "blue", "today"}, terms, tc.name)
	}
	_, err := pool.Exec(ctx, `SELECT zb.remember('t1', '   ')`)
	require.ErrorContains(t, err, "content is empty")
	_, err = pool.Exec(ctx, `SELECT zb.remember('bad tenant!', 'text')`)
	require.ErrorContains(t, err, "invalid tenant id 'bad tenant!'")

	var id int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.remember('t2', 'Secret of tenant two.')`).Scan(&id))
	var ok bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.forget('t1', $1)`, id).Scan(&ok))
	require.False(t, ok, "another tenant's id is refused")
	var content, status string
	require.NoError(t, pool.QueryRow(ctx, `SELECT content, status::text FROM zb.memory WHERE id = $1`, id).Scan(&content, &status))
	require.Equal(t, "Secret of tenant two.", content)
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.forget('t2', $1)`, id).Scan(&ok))
	require.True(t, ok)
	var emb, terms bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT content, status::text, embedding IS NULL, terms = '{}' FROM zb.memory WHERE id = $1`,
		id).Scan(&content, &status, &emb, &terms))
	require.Equal(t, []any{"", "erased", true, true}, []any{content, status, emb, terms})
	require.NoError(t, pool.QueryRow(ctx, `SELECT zb.forget('t2', $1)`, id).Scan(&ok))
	require.False(t, ok, "an erased memory is gone")
	var audits int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.audit_event
		WHERE tenant_id = 't2' AND memory_id = $1 AND action = 'memory.erase'`, id).Scan(&audits))
	require.Equal(t, 1, audits)
	got := sqlFloats(t, pool, `SELECT count(*)::float8 FROM zb.memory_live(now()) WHERE id = $1`, id)
	require.Equal(t, []float64{0}, got, "erased memories are not live")

	var diff, live int
	require.NoError(t, pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM ((TABLE zb.memory_live_now EXCEPT ALL SELECT * FROM zb.memory_live(now()))
		                       UNION ALL (SELECT * FROM zb.memory_live(now()) EXCEPT ALL TABLE zb.memory_live_now)) d),
		(SELECT count(*) FROM zb.memory_live_now)`).Scan(&diff, &live))
	require.Zero(t, diff, "memory_live_now must equal memory_live(now())")
	require.Equal(t, 5, live)
}

// TestSQLRecallBadInput checks that zb.recall refuses invalid arguments with a message that says
// what is wrong, and that an unknown tenant gives no rows.
func TestSQLRecallBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	tests := []struct {
		name, query, class string
		k                  int
		want               string
	}{
		{"empty query", "  ", "general", 5, "the query is empty"},
		{"zero k", "coffee", "general", 0, "k must be in [1, 1000], got 0"},
		{"huge k", "coffee", "general", 1001, "k must be in [1, 1000], got 1001"},
		{"unknown class", "coffee", "poetry", 5, "unknown query class poetry"},
	}
	for _, tc := range tests {
		_, err := pool.Exec(ctx, `SELECT * FROM zb.recall('t', $1, NULL, $2, p_class => $3)`, tc.query, tc.k, tc.class)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM zb.recall('nobody', 'coffee')`).Scan(&n))
	require.Zero(t, n)
}

// TestSQLTokensMatchGo compares zb.tokens with textproc.Tokens, zb.token_jaccard with
// textproc.Jaccard and zb.named_in with retrieval.NamedIn on everyday text.
func TestSQLTokensMatchGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, nil)
	texts := []string{
		"Caroline's sister didn't come — she's in Zürich!",
		"  The ÉCOLE opened in 1889; ﬁne “quotes” and don’t-stop.",
		"Jon lost his job as a banker.", "!!!", "", "Straße groß ÄÖÜ", "a-b_c d'e 'quoted' x’y",
		"Melanie painted a sunrise over the lake last year.", "Ümit and José met at 10:30 in the café",
	}
	names := []string{"Caroline Smith", "Jon", "The Who", "José", "a", "Zürich", "ümit"}
	for _, x := range texts {
		var got []string
		require.NoError(t, pool.QueryRow(ctx, `SELECT zb.tokens($1)`, x).Scan(&got))
		want := textproc.Tokens(x)
		if want == nil {
			want = []string{}
		}
		require.Equal(t, want, got, "tokens of %q", x)
		for _, y := range texts {
			var j float64
			require.NoError(t, pool.QueryRow(ctx, `SELECT zb.token_jaccard(zb.tokens($1), zb.tokens($2))`, x, y).Scan(&j))
			require.InDelta(t, textproc.Jaccard(textproc.Tokens(x), textproc.Tokens(y)), j, 1e-12, "jaccard %q %q", x, y)
		}
		for _, n := range names {
			var named bool
			require.NoError(t, pool.QueryRow(ctx, `SELECT zb.named_in($1, $2)`, x, n).Scan(&named))
			require.Equal(t, retrieval.NamedIn(x, n), named, "named_in(%q, %q)", x, n)
		}
	}
}
