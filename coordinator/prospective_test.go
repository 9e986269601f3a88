package coordinator_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// topicEmbedder embeds a text onto one axis per topic whose words it contains (weight 1), so
// that texts without a shared word can still be near (billing ~ invoice ~ payment), plus the
// fake bag of stems scaled by 0.05 on the other axes.
type topicEmbedder struct{}

var embedTopics = [][]string{{"billing", "invoice", "payment", "paid"}, {"garden", "roses", "tulips"}}

func (topicEmbedder) Dim() int      { return testDim }
func (topicEmbedder) Model() string { return "topics" }
func (topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	bags, err := fakeEmbedder{dim: testDim - len(embedTopics)}.Embed(context.Background(), texts)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, testDim)
		low := strings.ToLower(t)
		for k, words := range embedTopics {
			for _, w := range words {
				if strings.Contains(low, w) {
					v[k] = 1
				}
			}
		}
		for j, x := range bags[i] {
			v[len(embedTopics)+j] = 0.05 * x
		}
		out[i] = v
	}
	return out, nil
}

func TestIntentionParseAndValidate(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	in, err := b.co.AddIntention(ctx, "pm", coordinator.IntentionInput{Text: "Remind me to call mom tomorrow at 9"})
	require.NoError(t, err)
	require.Equal(t, "time", in.Trigger)
	require.Equal(t, "call mom", in.Content)
	require.Equal(t, time.Date(2024, 5, 9, 9, 0, 0, 0, time.UTC), in.DueAt.UTC())
	require.Equal(t, in.DueAt.Add(7*24*time.Hour), *in.ExpiresAt, "7 days of grace after due")
	require.Equal(t, "pending", in.Status)
	require.Equal(t, "medium", in.Priority)

	de, err := b.co.AddIntention(ctx, "pm", coordinator.IntentionInput{Text: "Erinnere mich morgen an den Zahnarzt, es ist dringend"})
	require.NoError(t, err)
	require.Equal(t, "time", de.Trigger)
	require.Equal(t, "high", de.Priority)
	require.Equal(t, 2024, de.DueAt.Year())
	require.Equal(t, time.May, de.DueAt.Month())
	require.Equal(t, 9, de.DueAt.Day())

	cue, err := b.co.AddIntention(ctx, "pm", coordinator.IntentionInput{Text: "When I talk to Anna, ask about the trip"})
	require.NoError(t, err)
	require.Equal(t, "cue", cue.Trigger)
	require.Equal(t, "Anna", cue.Cue)
	require.Equal(t, []string{"Anna"}, cue.CueEntities)
	require.Equal(t, t0.Add(30*24*time.Hour), cue.ExpiresAt.UTC(), "cue intentions expire after 30 days")

	due := t0.Add(time.Hour)
	ex, err := b.co.AddIntention(ctx, "pm", coordinator.IntentionInput{Content: "water the plants", DueAt: &due, Priority: "low"})
	require.NoError(t, err)
	require.Equal(t, "low", ex.Priority)

	past := t0.Add(-time.Hour)
	for name, bad := range map[string]coordinator.IntentionInput{
		"empty":         {},
		"not reminder":  {Text: "the weather is nice"},
		"two triggers":  {Content: "x", DueAt: &due, Cue: "Anna"},
		"no trigger":    {Content: "x"},
		"past":          {Content: "x", DueAt: &past},
		"text+content":  {Text: "remind me to x tomorrow", Content: "x"},
		"priority":      {Content: "x", Cue: "Anna", Priority: "urgent!"},
		"context":       {Content: "x", Cue: "Anna", Context: "Bad Context"},
		"expiry<create": {Content: "x", Cue: "Anna", ExpiresAt: &past},
		"too long":      {Text: strings.Repeat("remind me ", 60)},
		"nul":           {Content: "a\x00b", Cue: "Anna"},
	} {
		_, err := b.co.AddIntention(ctx, "pm", bad)
		require.ErrorIs(t, err, coordinator.ErrInvalidInput, name)
	}
	_, err = b.co.AddIntention(ctx, "pm", coordinator.IntentionInput{Text: "the weather is nice"})
	require.ErrorIs(t, err, coordinator.ErrNotIntention)

	list, err := b.co.Intentions(ctx, "pm", "pending", 0)
	require.NoError(t, err)
	require.Len(t, list, 4, "nothing half-written by the rejected inputs")
	require.Equal(t, ex.ID, list[0].ID, "newest first")
	_, err = b.co.Intentions(ctx, "pm", "bogus", 0)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	require.Equal(t, 4, queryInt(t, b.cfg.Pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'pm' AND action = 'intention.add'`))
}

// TestIntentionTimeTrigger measures the effect of the prospective switch on Context: a due
// reminder appears in the context with it on (1 intention) and not with it off (0).
func TestIntentionTimeTrigger(t *testing.T) {
	t.Parallel()
	surfaced := map[bool]int{true: 0, false: 0}
	for _, on := range []bool{true, false} {
		b := setup(t, nil)
		ctx := ctxT(t)
		_, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "tt", Content: "Sam", CoreLabel: "name"})
		require.NoError(t, err)
		_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "tt", Content: "The dentist is on Elm Street"})
		require.NoError(t, err)
		if !on {
			require.NoError(t, b.co.SetAlgorithm(ctx, "tt", "prospective", false))
		}
		in, err := b.co.AddIntention(ctx, "tt", coordinator.IntentionInput{Text: "remind me to book the dentist in two hours"})
		require.NoError(t, err)
		require.Equal(t, t0.Add(2*time.Hour), in.DueAt.UTC())

		b.clock.Add(time.Hour)
		rep, err := b.co.ProspectiveTick(ctx, 0, nil)
		require.NoError(t, err)
		require.Empty(t, rep.Fired, "not due yet")

		b.clock.Add(90 * time.Minute)
		rep, err = b.co.ProspectiveTick(ctx, 0, nil)
		require.NoError(t, err)
		blk, err := b.co.Context(ctx, "tt", nil, "what is on Elm Street?", 200)
		require.NoError(t, err)
		for _, it := range blk.Items {
			if it.Section == "prospective" {
				surfaced[on]++
				require.Equal(t, in.ID, it.ID)
				require.Equal(t, "book the dentist", it.Content)
			}
		}
		cur, err := b.co.Intentions(ctx, "tt", "", 0)
		require.NoError(t, err)
		if !on {
			require.Empty(t, rep.Fired)
			require.Equal(t, "pending", cur[0].Status)
			continue
		}
		require.Len(t, rep.Fired, 1)
		require.Equal(t, "time", rep.Fired[0].Reason)
		require.Equal(t, "fired", cur[0].Status)
		require.Equal(t, t0.Add(150*time.Minute), cur[0].FiredAt.UTC())
		require.Contains(t, blk.Text, "## Intentions\n- book the dentist\n")
		// A second tick fires nothing again; after the surface window it leaves the context.
		rep, err = b.co.ProspectiveTick(ctx, 0, nil)
		require.NoError(t, err)
		require.Empty(t, rep.Fired)
		b.clock.Add(coordinator.ProspectiveSurfaceWindow + time.Minute)
		blk, err = b.co.Context(ctx, "tt", nil, "what is on Elm Street?", 200)
		require.NoError(t, err)
		require.NotContains(t, blk.Text, "book the dentist")
	}
	require.Equal(t, map[bool]int{true: 1, false: 0}, surfaced)
}

func TestIntentionCueTriggers(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *coordinator.Config) { c.Embedder = topicEmbedder{} })
	ctx := ctxT(t)
	anna, err := b.co.AddIntention(ctx, "cue", coordinator.IntentionInput{Text: "When I talk to Anna, ask about the trip"})
	require.NoError(t, err)
	budget, err := b.co.AddIntention(ctx, "cue", coordinator.IntentionInput{Content: "mention the travel budget", Cue: "quarterly budget"})
	require.NoError(t, err)
	bill, err := b.co.AddIntention(ctx, "cue", coordinator.IntentionInput{Content: "check the bank transfer", Cue: "billing"})
	require.NoError(t, err)
	later, err := b.co.AddIntention(ctx, "cue", coordinator.IntentionInput{Content: "never", Cue: "zebra crossing"})
	require.NoError(t, err)

	// Store: derive matches the stored text by entity and by embedding.
	b.clock.Add(time.Minute)
	m1, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "cue", Content: "Lunch with Anna Schmidt at the harbour"})
	require.NoError(t, err)
	m2, err := b.co.Store(ctx, coordinator.StoreInput{TenantID: "cue", Content: "The invoice for March was paid late"})
	require.NoError(t, err)
	got, err := b.co.Intentions(ctx, "cue", "fired", 0)
	require.NoError(t, err)
	require.Empty(t, got, "store fires cues in the derive job, not inline")
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "cue", Pending: true}, nil)
	require.NoError(t, err)

	// Recall: the query matches by keyword.
	_, err = b.co.Recall(ctx, "cue", "What was the quarterly budget?", nil)
	require.NoError(t, err)

	all, err := b.co.Intentions(ctx, "cue", "", 0)
	require.NoError(t, err)
	byID := map[int64]coordinator.Intention{}
	for _, in := range all {
		byID[in.ID] = in
	}
	require.Equal(t, "fired", byID[anna.ID].Status)
	require.Equal(t, "entity", byID[anna.ID].FiredReason)
	require.Equal(t, "store", byID[anna.ID].FiredSource)
	require.Equal(t, m1.ID, *byID[anna.ID].FiredBy)
	require.InDelta(t, 1, *byID[anna.ID].FiredScore, 1e-9, "Anna ⊂ Anna Schmidt: overlap 1")

	require.Equal(t, "fired", byID[bill.ID].Status)
	require.Equal(t, "embedding", byID[bill.ID].FiredReason, "no shared word: the embedding matched")
	require.Equal(t, m2.ID, *byID[bill.ID].FiredBy)
	require.GreaterOrEqual(t, *byID[bill.ID].FiredScore, 0.8)

	require.Equal(t, "fired", byID[budget.ID].Status)
	require.Equal(t, "keyword", byID[budget.ID].FiredReason)
	require.Equal(t, "recall", byID[budget.ID].FiredSource)
	require.Nil(t, byID[budget.ID].FiredBy)

	require.Equal(t, "pending", byID[later.ID].Status)
	require.Equal(t, 3, queryInt(t, b.cfg.Pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'cue' AND action = 'intention.fire'`))

	// Fired once: storing and recalling again changes nothing.
	_, err = b.co.Store(ctx, coordinator.StoreInput{TenantID: "cue", Content: "Anna sent the invoice"})
	require.NoError(t, err)
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "cue", Pending: true}, nil)
	require.NoError(t, err)
	require.Equal(t, 3, queryInt(t, b.cfg.Pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'cue' AND action = 'intention.fire'`))

	// A memory stored before an intention was created does not fire it.
	b.clock.Add(time.Minute)
	old := insertMem(t, b.cfg.Pool, "cue", memSpec{content: "We crossed the zebra crossing", created: t0.Add(-time.Minute), stability: 7})
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: "cue", MemoryIDs: []int64{old}}, nil)
	require.NoError(t, err)
	cur, err := b.co.Intentions(ctx, "cue", "pending", 0)
	require.NoError(t, err)
	require.Len(t, cur, 1)

	// Switched off, cues do not fire.
	require.NoError(t, b.co.SetAlgorithm(ctx, "cue", "prospective", false))
	_, err = b.co.Recall(ctx, "cue", "zebra crossing", nil)
	require.NoError(t, err)
	cur, err = b.co.Intentions(ctx, "cue", "pending", 0)
	require.NoError(t, err)
	require.Len(t, cur, 1)
}

func TestIntentionDismissExpire(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	exp := t0.Add(time.Hour)
	a, err := b.co.AddIntention(ctx, "dx", coordinator.IntentionInput{Content: "ask Bob", Cue: "Bob", ExpiresAt: &exp})
	require.NoError(t, err)
	c, err := b.co.AddIntention(ctx, "dx", coordinator.IntentionInput{Content: "ask Carol", Cue: "Carol"})
	require.NoError(t, err)
	due := t0.Add(time.Minute)
	f, err := b.co.AddIntention(ctx, "dx", coordinator.IntentionInput{Content: "stretch", DueAt: &due})
	require.NoError(t, err)

	b.clock.Add(2 * time.Hour)
	rep, err := b.co.ProspectiveTick(ctx, 0, nil)
	require.NoError(t, err)
	require.Len(t, rep.Fired, 1)
	require.Equal(t, 1, rep.Expired)

	d, err := b.co.DismissIntention(ctx, "dx", a.ID)
	require.NoError(t, err, "expired → dismissed")
	require.Equal(t, "dismissed", d.Status)
	d, err = b.co.DismissIntention(ctx, "dx", c.ID)
	require.NoError(t, err, "pending → dismissed")
	require.Equal(t, "dismissed", d.Status)
	require.Equal(t, b.clock.Now(), d.ResolvedAt.UTC())
	_, err = b.co.DismissIntention(ctx, "dx", c.ID)
	require.ErrorIs(t, err, coordinator.ErrIntentionTransition)
	_, err = b.co.DismissIntention(ctx, "dx", f.ID)
	require.ErrorIs(t, err, coordinator.ErrIntentionTransition, "fired is final")
	_, err = b.co.DismissIntention(ctx, "dx", 99999)
	require.ErrorIs(t, err, coordinator.ErrNotFound)
	_, err = b.co.DismissIntention(ctx, "dx", -1)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	_, err = b.co.ProspectiveTick(ctx, -1, nil)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
}

func TestIntentionTickConcurrent(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	for i := range 30 {
		due := t0.Add(time.Duration(i+1) * time.Minute)
		_, err := b.co.AddIntention(ctx, []string{"ta", "tb"}[i%2], coordinator.IntentionInput{Content: "task " + fmtInt(int64(i)), DueAt: &due})
		require.NoError(t, err)
	}
	b.clock.Add(time.Hour)
	var wg sync.WaitGroup
	fired := make([]int, 4)
	for g := range fired {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rep, err := b.co.ProspectiveTick(ctx, 4, nil)
				if err != nil {
					t.Error(err)
					return
				}
				fired[g] += len(rep.Fired)
				if len(rep.Fired) == 0 && !rep.More {
					return
				}
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 30, fired[0]+fired[1]+fired[2]+fired[3], "every intention fired exactly once")
	require.Equal(t, 30, queryInt(t, b.cfg.Pool, `SELECT count(*) FROM zb.audit_event WHERE action = 'intention.fire'`))
}
