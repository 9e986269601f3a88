package coordinator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
)

func count(t *testing.T, b *testBundle, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, b.cfg.Pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

func TestCoreUpsertByLabel(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	r1, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "c", Content: "Alice", CoreLabel: "name"})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomeCreated, r1.Outcome)
	r2, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "c", Content: "Alice", CoreLabel: "name"})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomeUnchanged, r2.Outcome)
	require.Equal(t, r1.ID, r2.ID)
	r3, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "c", Content: "Alicia", CoreLabel: "name"})
	require.NoError(t, err)
	require.Equal(t, coordinator.OutcomeUpdated, r3.Outcome)
	require.Equal(t, r1.ID, r3.ID)
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id = 'c'"))
	var detail []byte
	require.NoError(t, b.cfg.Pool.QueryRow(ctx, "SELECT detail FROM zb.audit_event WHERE tenant_id = 'c' AND action = 'memory.update'").Scan(&detail))
	var d map[string]any
	require.NoError(t, json.Unmarshal(detail, &d))
	require.Equal(t, "Alice", d["old_value"])
	require.Equal(t, "Alicia", d["new_value"])
	// Core never decays: no stability, no fade time.
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id = 'c' AND stability IS NULL AND fade_at IS NULL"))
}

func TestWorkingMemoryEviction(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	sess := uuid.New()
	var stored []int64
	rels := []float64{0.9, 0.8, 0.3, 0.95, 0.7, 0.85, 0.6}
	for i, rel := range rels {
		r, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "w", Content: fmt.Sprintf("focus item %d", i), Layer: coordinator.LayerWorking, SessionID: &sess, Relevance: rel})
		require.NoError(t, err)
		require.Zero(t, r.Evicted)
		stored = append(stored, r.ID)
		b.clock.Add(time.Minute)
	}
	// The 8th item, with the lowest relevance of all, still enters; slot 3 (relevance 0.3) leaves.
	r, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "w", Content: "newcomer", Layer: coordinator.LayerWorking, SessionID: &sess, Relevance: 0.1})
	require.NoError(t, err)
	require.Equal(t, stored[2], r.Evicted)
	require.EqualValues(t, 7, count(t, b, "SELECT count(*) FROM zb.working_slot WHERE tenant_id = 'w'"))
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.working_slot WHERE tenant_id = 'w' AND memory_id = $1", r.ID))
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id = 'w' AND id = $1 AND layer = 'short_term'", stored[2]))
	// An hour later the former newcomer (0.1·e^(−60/30) = 0.014) is the weakest slot, below
	// 0.7·e^(−63/30) = 0.086 of item 4.
	b.clock.Add(time.Hour)
	r2, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "w", Content: "another", Layer: coordinator.LayerWorking, SessionID: &sess, Relevance: 1})
	require.NoError(t, err)
	require.Equal(t, r.ID, r2.Evicted)
	_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "w", Content: "x", Layer: coordinator.LayerWorking})
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
}

func TestSemanticSupersession(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	old, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "s", Content: "Bob lives in Berlin"})
	require.NoError(t, err)
	other, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "s", Content: "Bob works at Acme"})
	require.NoError(t, err)
	b.clock.Add(24 * time.Hour)
	nw, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "s", Content: "Bob lives in Paris."})
	require.NoError(t, err)
	require.Equal(t, []int64{old.ID}, nw.Superseded)
	require.Equal(t, "residence", nw.Fact.Attribute)
	var validTo *time.Time
	var by *int64
	require.NoError(t, b.cfg.Pool.QueryRow(ctx, "SELECT valid_to, superseded_by FROM zb.memory WHERE tenant_id='s' AND id=$1", old.ID).Scan(&validTo, &by))
	require.Equal(t, nw.ID, *by)
	require.True(t, validTo.Equal(t0.Add(24*time.Hour)))
	require.EqualValues(t, 0, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id='s' AND id=$1 AND valid_to IS NOT NULL", other.ID))

	// Recall sees only the current fact; as-of the past sees the old one.
	res, err := b.co.Recall(ctx, "s", "Where does Bob live?", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Contains(t, ids(res.Results), nw.ID)
	require.NotContains(t, ids(res.Results), old.ID)
	asOf := t0.Add(time.Hour)
	res, err = b.co.Recall(ctx, "s", "Where does Bob live?", &coordinator.RecallOpts{ReadOnly: true, AsOf: &asOf})
	require.NoError(t, err)
	require.Contains(t, ids(res.Results), old.ID)
	require.NotContains(t, ids(res.Results), nw.ID)

	// An older statement stored later is historical at once.
	past := t0.Add(-30 * 24 * time.Hour)
	hist, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "s", Content: "Bob lives in Rome", Layer: coordinator.LayerSemantic, OccurredAt: &past})
	require.NoError(t, err)
	require.NotZero(t, hist.SupersededBy)
	require.Empty(t, hist.Superseded)
}

func TestEpisodicRelativeDates(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	occ := time.Date(2023, 5, 8, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		text     string
		from, to time.Time
	}{
		{"Yesterday I went to the support group", time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC), time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)},
		{"Last week I painted a sunrise", time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)},
		{"Two months ago we moved house", time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2023, 4, 1, 0, 0, 0, 0, time.UTC)},
		{"Letzte Woche war ich in Wien", time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		r, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "e", Content: tt.text, OccurredAt: &occ})
		require.NoError(t, err, tt.text)
		require.Equal(t, coordinator.LayerEpisodic, r.Layer)
		var from, to time.Time
		require.NoError(t, b.cfg.Pool.QueryRow(ctx, "SELECT event_from, event_to FROM zb.memory WHERE tenant_id='e' AND id=$1", r.ID).Scan(&from, &to))
		require.True(t, from.Equal(tt.from), "%s: from %v", tt.text, from)
		require.True(t, to.Equal(tt.to), "%s: to %v", tt.text, to)
	}
}

func TestProceduralOutcome(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	r, err := b.co.RecordSkill(ctx, "p", "", coordinator.Skill{Trigger: "deploy the app", Steps: []string{"build", "push", "restart"}, Tools: []string{"docker"}})
	require.NoError(t, err)
	require.Equal(t, coordinator.LayerProcedural, r.Layer)
	b.clock.Add(24 * time.Hour)
	o1, err := b.co.ReportOutcome(ctx, "p", r.ID, true)
	require.NoError(t, err)
	require.Greater(t, o1.Stability, 7.0, "success grows S beyond the initial 7 days")
	require.InDelta(t, 2.0/3, o1.Confidence, 1e-9)
	o2, err := b.co.ReportOutcome(ctx, "p", r.ID, false)
	require.NoError(t, err)
	require.InDelta(t, o1.Stability*0.5, o2.Stability, 1e-6)
	require.InDelta(t, 0.5, o2.Confidence, 1e-9)
	require.Equal(t, 1, o2.Successes)
	require.Equal(t, 1, o2.Failures)
	_, err = b.co.ReportOutcome(ctx, "p", 999999, true)
	require.ErrorIs(t, err, coordinator.ErrNotFound)
}

func TestSessions(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	s1, err := b.co.StartSession(ctx, "ss", "")
	require.NoError(t, err)
	s2, err := b.co.StartSession(ctx, "ss", "work")
	require.NoError(t, err)
	b.clock.Add(40 * time.Minute)
	require.NoError(t, b.co.TouchSession(ctx, "ss", s2, "work"))
	idle, err := b.co.IdleSessions(ctx, 30*time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, idle, 1)
	require.Equal(t, s1, idle[0].ID)
	ended, err := b.co.EndSession(ctx, "ss", s1)
	require.NoError(t, err)
	require.NotNil(t, ended.EndedAt)
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM river.river_job WHERE kind = 'zb_consolidate'"))
	_, err = b.co.EndSession(ctx, "ss", s1)
	require.NoError(t, err)
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM river.river_job WHERE kind = 'zb_consolidate'"), "unique by args")
	_, err = b.co.EndSession(ctx, "ss", uuid.New())
	require.ErrorIs(t, err, coordinator.ErrNotFound)
}

func TestStoreBatch(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	occ := t0.Add(-time.Hour)
	var items []coordinator.StoreInput
	for i := range 300 {
		items = append(items, coordinator.StoreInput{TenantID: "bt", Content: fmt.Sprintf("turn %d about topic %d", i, i%7), ExternalID: fmt.Sprintf("D1:%d", i), OccurredAt: &occ})
	}
	n, err := b.co.StoreBatch(ctx, items)
	require.NoError(t, err)
	require.EqualValues(t, 300, n)
	require.EqualValues(t, 300, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id='bt' AND embedding IS NOT NULL AND term_count > 0"))
	require.EqualValues(t, 1, count(t, b, "SELECT count(*) FROM river.river_job WHERE kind = 'zb_derive'"))
	res, err := b.co.Recall(ctx, "bt", "turn 42 about topic", &coordinator.RecallOpts{ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, "D1:42", res.Results[0].Provenance.ExternalID)
	// One bad item writes nothing.
	items[5].Content = "bad\x00"
	_, err = b.co.StoreBatch(ctx, items)
	require.ErrorIs(t, err, coordinator.ErrInvalidUTF8)
	require.EqualValues(t, 300, count(t, b, "SELECT count(*) FROM zb.memory WHERE tenant_id='bt'"))
}

var _ = db.New
