package coordinator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
)

func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	tests := []struct {
		name string
		in   coordinator.StoreInput
		err  error
	}{
		{"empty", coordinator.StoreInput{TenantID: "bad", Content: "  \n"}, coordinator.ErrEmptyContent},
		{"too large", coordinator.StoreInput{TenantID: "bad", Content: strings.Repeat("a", 64<<10+1)}, coordinator.ErrContentTooLarge},
		{"invalid utf8", coordinator.StoreInput{TenantID: "bad", Content: "ok \xff\xfe"}, coordinator.ErrInvalidUTF8},
		{"nul", coordinator.StoreInput{TenantID: "bad", Content: "a\x00b"}, coordinator.ErrInvalidUTF8},
		{"unknown layer", coordinator.StoreInput{TenantID: "bad", Content: "x", Layer: "limbic"}, coordinator.ErrUnknownLayer},
		{"bad tenant", coordinator.StoreInput{TenantID: "no spaces allowed", Content: "x"}, coordinator.ErrInvalidTenant},
		{"wrong dim", coordinator.StoreInput{TenantID: "bad", Content: "x", Embedding: make([]float32, 3)}, coordinator.ErrDimensionMismatch},
		{"nan", coordinator.StoreInput{TenantID: "bad", Content: "x", Embedding: append([]float32{float32(nanF())}, make([]float32, testDim-1)...)}, coordinator.ErrInvalidEmbedding},
		{"core without label", coordinator.StoreInput{TenantID: "bad", Content: "x", Layer: coordinator.LayerCore}, coordinator.ErrInvalidInput},
		{"importance", coordinator.StoreInput{TenantID: "bad", Content: "x", Importance: 2}, coordinator.ErrInvalidInput},
	}
	for _, tt := range tests {
		_, err := b.co.Store(ctx, tt.in)
		require.ErrorIs(t, err, tt.err, tt.name)
		require.ErrorIs(t, err, coordinator.ErrInvalidInput, tt.name)
	}
	require.EqualValues(t, 0, count(t, b, "SELECT count(*) FROM zb.memory"))
	require.EqualValues(t, 0, count(t, b, "SELECT count(*) FROM zb.tenant"))
	require.EqualValues(t, 0, count(t, b, "SELECT count(*) FROM river.river_job"))

	for _, k := range []int{-1, 1001} {
		_, err := b.co.Recall(ctx, "bad", "q", &coordinator.RecallOpts{K: k})
		require.ErrorIs(t, err, coordinator.ErrInvalidK)
	}
	_, err := b.co.Recall(ctx, "bad", "q", &coordinator.RecallOpts{Layers: []coordinator.Layer{"nope"}})
	require.ErrorIs(t, err, coordinator.ErrUnknownLayer)
	_, err = b.co.Recall(ctx, "bad", "", nil)
	require.ErrorIs(t, err, coordinator.ErrEmptyContent)
	// A tenant that has stored nothing recalls nothing, without error or side effects (an
	// agent's first call), read-only or not.
	res, err := b.co.Recall(ctx, "ghost", "what do you know about me?", nil)
	require.NoError(t, err)
	require.Empty(t, res.Results)
	require.False(t, res.SideEffects)
	require.EqualValues(t, 0, count(t, b, "SELECT count(*) FROM zb.tenant WHERE id = 'ghost'"))
	res, err = b.co.Recall(ctx, "ghost", "anything", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Empty(t, res.Results)
	block, err := b.co.Context(ctx, "ghost", nil, "what do you know about me?", 250)
	require.NoError(t, err)
	require.NotNil(t, block)

	// An embedder of the wrong dimension or returning NaN.
	pool := b.cfg.Pool
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: fakeEmbedder{dim: testDim + 1}})
	require.NoError(t, err)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: "bad", Content: "x"})
	require.ErrorIs(t, err, coordinator.ErrDimensionMismatch)
	co, err = coordinator.New(&coordinator.Config{Pool: pool, Embedder: fakeEmbedder{dim: testDim, nan: true}})
	require.NoError(t, err)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: "bad", Content: "x"})
	require.ErrorIs(t, err, coordinator.ErrInvalidEmbedding)
	require.EqualValues(t, 0, count(t, b, "SELECT count(*) FROM zb.memory"))
	_, err = coordinator.New(&coordinator.Config{})
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = coordinator.New(&coordinator.Config{Pool: pool, MaxContentBytes: -1})
	require.ErrorContains(t, err, "MaxContentBytes")
}

func nanF() float64 { var z float64; return z / z }

func TestRecallOrdering(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	occ := time.Date(2024, 5, 1, 18, 0, 0, 0, time.UTC) // a Wednesday, the week before t0
	ep, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "r", Content: "Yesterday I went hiking in the Alps with Tom", OccurredAt: &occ})
	require.NoError(t, err)
	require.Equal(t, coordinator.LayerEpisodic, ep.Layer)
	fact, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "r", Content: "Tom likes hiking in the Alps"})
	require.NoError(t, err)
	require.Equal(t, coordinator.LayerSemantic, fact.Layer)
	_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "r", Content: "The office coffee machine is broken"})
	require.NoError(t, err)

	temporal, err := b.co.Recall(ctx, "r", "What did I do with Tom last week?", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, "temporal", string(temporal.Class))
	require.NotNil(t, temporal.Range)
	require.Equal(t, ep.ID, temporal.Results[0].ID)
	require.InDelta(t, 2.0, temporal.Results[0].Signals.LayerWeight, 1e-9)

	factual, err := b.co.Recall(ctx, "r", "What does Tom like?", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, "factual", string(factual.Class))
	require.Equal(t, fact.ID, factual.Results[0].ID)
	require.InDelta(t, 1.8, factual.Results[0].Signals.LayerWeight, 1e-9)
	require.InDelta(t, 1.0, factual.Results[0].Signals.Boost, 1e-12, "no edges yet: no boost")
}

func TestRecallForgettingAndSwitches(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	old, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "f", Content: "the blue car is parked in the garage", Layer: coordinator.LayerEpisodic})
	require.NoError(t, err)
	b.clock.Add(5 * 24 * time.Hour)
	fresh, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "f", Content: "the red car is parked in the garage", Layer: coordinator.LayerEpisodic})
	require.NoError(t, err)
	res, err := b.co.Recall(ctx, "f", "car parked in the garage", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, []int64{fresh.ID, old.ID}, ids(res.Results))
	require.Less(t, res.Results[1].Retrievability, 0.01, "5 days at S = 1 day: R = e^-5")
	f := retrieval.ForgettingFloorDefault
	require.InDelta(t, f+(1-f)*res.Results[1].Retrievability, res.Results[1].Signals.Retention, 1e-9)

	// decay off: R = 1 for both; the tie goes to the lower id.
	q := db.New(b.cfg.Pool)
	require.NoError(t, q.AlgorithmSwitchSet(ctx, db.AlgorithmSwitchSetParams{TenantID: "f", Algorithm: "decay", Enabled: false, Now: t0, UpdatedBy: "test"}))
	res, err = b.co.Recall(ctx, "f", "car parked in the garage", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, []int64{old.ID, fresh.ID}, ids(res.Results))
	require.InDelta(t, 1, res.Results[1].Retrievability, 0)

	// Side effects: access count, stability growth, lability window, recall event, audit.
	res, err = b.co.Recall(ctx, "f", "car parked in the garage", nil)
	require.NoError(t, err)
	require.True(t, res.SideEffects)
	require.ElementsMatch(t, []int64{old.ID, fresh.ID}, res.Touched)
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id='f' AND id=$1 AND access_count = 1 AND stability > 1.9", old.ID))
	require.EqualValues(t, 2, count(t, b, "SELECT count(*) FROM zb.lability_window WHERE tenant_id='f' AND closes_at = $1", b.clock.Now().Add(10*time.Minute)))
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.recall_event WHERE tenant_id='f'"))
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.audit_event WHERE tenant_id='f' AND action='memory.recall' AND length(detail->>'query_sha256') = 64"))
}

// Go's reference BM25 and the SQL BM25 agree on the same corpus.
func TestBM25MatchesReference(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	docs := []string{"apples and oranges are fruit", "apples apples apples pie recipe", "the orange cat sleeps", "fruit salad with many apples and a long list of other fruit ingredients"}
	for _, d := range docs {
		_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "bm", Content: d, Layer: coordinator.LayerSemantic})
		require.NoError(t, err)
	}
	res, err := b.co.Recall(ctx, "bm", "apples fruit", &coordinator.RecallOpts{ReadOnly: true, K: 10})
	require.NoError(t, err)
	ref := referenceBM25(t, docs, "apples fruit")
	got := map[string]float64{}
	for _, r := range res.Results {
		got[r.Content] = r.Signals.BM25
	}
	for i, d := range docs {
		if ref[i] > 0 {
			require.InDelta(t, ref[i], got[d], 1e-9, d)
		}
	}
}

// Store and recall while another transaction holds row locks on the same memories, as a
// sleep run would: neither waits.
func TestStoreAndRecallDoNotWaitOnLocks(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	m, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "lk", Content: "Bob lives in Berlin"})
	require.NoError(t, err)
	tx, err := b.cfg.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.Background()) }()
	_, err = tx.Exec(ctx, "SELECT id FROM zb.memory WHERE tenant_id = 'lk' FOR UPDATE")
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "UPDATE zb.memory SET stability = stability * 1.25 WHERE tenant_id = 'lk'")
	require.NoError(t, err)

	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := b.co.Recall(short, "lk", "Where does Bob live?", nil)
	require.NoError(t, err)
	require.Equal(t, m.ID, res.Results[0].ID)
	require.True(t, res.SideEffects)
	require.Empty(t, res.Touched, "the locked row's access is skipped")

	nw, err := b.co.Store(short, coordinator.StoreInput{TenantID: "lk", Content: "Bob lives in Paris"})
	require.NoError(t, err)
	require.Empty(t, nw.Superseded, "the locked older fact is left to the derive job")
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM river.river_job WHERE kind='zb_derive' AND (args->>'recheck_supersede')::boolean"))
	require.NoError(t, short.Err())
}

func TestContextBudget(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "cx", Content: "Alice", CoreLabel: "name"})
	require.NoError(t, err)
	sess := uuid.New()
	_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "cx", Content: "fixing the login bug", Layer: coordinator.LayerWorking, SessionID: &sess})
	require.NoError(t, err)
	for i := range 20 {
		_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "cx", Content: strings.Repeat("login bug note ", 3+i)})
		require.NoError(t, err)
	}
	// With the global workspace (gwt, the default) core is still pinned first, but working
	// memory competes with the other modules for the rest of the budget (issue #12): at 20
	// tokens its share cannot hold "## Working memory" and its item, at 40 it can. With gwt off
	// the plain assembly pins working memory right after core.
	for _, gwt := range []bool{true, false} {
		require.NoError(t, b.co.SetAlgorithm(ctx, "cx", "gwt", gwt))
		for _, budget := range []int{5, 8, 20, 40, 400} {
			blk, err := b.co.Context(ctx, "cx", &sess, "login bug", budget)
			require.NoError(t, err)
			require.LessOrEqual(t, blk.Used, budget)
			require.LessOrEqual(t, coordinator.EstimateTokens(blk.Text), budget)
			if budget < 7 {
				require.Empty(t, blk.Items, "core heading + item need 7 tokens")
				continue
			}
			require.Equal(t, "core", blk.Items[0].Section, "core always first")
			if (!gwt && budget >= 20) || budget >= 40 {
				sections := map[string]bool{}
				for _, it := range blk.Items {
					sections[it.Section] = true
				}
				require.True(t, sections["working"], "gwt %v budget %d: %s", gwt, budget, blk.Text)
			}
			if !gwt && budget >= 20 {
				require.Equal(t, "working", blk.Items[1].Section)
			}
		}
	}
}

func TestRecallTimingReport(t *testing.T) {
	t.Parallel()
	tm := coordinator.RecallTiming{
		Total: 26_300 * time.Microsecond, Embed: 30 * time.Microsecond, Candidates: 24_100 * time.Microsecond,
		VectorHalf: 11_800 * time.Microsecond, LexicalHalf: 20_100 * time.Microsecond, Join: 1_200 * time.Microsecond,
		Rank: 300 * time.Microsecond, SideEffects: 1_900 * time.Microsecond,
	}
	require.Equal(t, "26.3 ms: embed 0.03, candidates 24.1 (vector half 11.8 and lexical half 20.1 at the same time, join 1.2), rank 0.30, side effects 1.9", tm.String())
	b, err := json.Marshal(tm)
	require.NoError(t, err)
	require.JSONEq(t, `{"total_ms":26.3,"embed_ms":0.03,"candidates_ms":24.1,"vector_half_ms":11.8,"lexical_half_ms":20.1,"join_ms":1.2,"rank_ms":0.3,"side_effects_ms":1.9}`, string(b))

	// One statement, read-only: no parts, no side effects.
	one := coordinator.RecallTiming{Total: 2_712_345 * time.Nanosecond, Embed: 25 * time.Microsecond, Candidates: 2 * time.Millisecond, Rank: 400 * time.Microsecond}
	require.Equal(t, "2.7 ms: embed 0.03, candidates 2.0, rank 0.40", one.String())
	b, err = json.Marshal(one)
	require.NoError(t, err)
	require.JSONEq(t, `{"total_ms":2.712,"embed_ms":0.025,"candidates_ms":2,"rank_ms":0.4,"side_effects_ms":0}`, string(b))
}
