package locomo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// oracle returns a system that answers every question with its evidence,
// one hit per evidence id, after `before` irrelevant hits.
func oracle(t *testing.T, name string, ds *Dataset, before int) *fakeSystem {
	t.Helper()
	answers := map[string][]string{}
	for _, m := range []Mode{PerConversation, SharedPool} {
		plans, err := BuildPlan(ds, m)
		require.NoError(t, err)
		for _, p := range plans {
			for _, q := range p.Queries {
				answers[p.Tenant+"|"+q.Text] = q.Evidence
			}
		}
	}
	return &fakeSystem{name: name, answer: func(tenant, query string) ([]Hit, error) {
		var hs []Hit
		for range before {
			hs = append(hs, Hit{SourceIDs: []string{"nothing"}})
		}
		for _, id := range answers[tenant+"|"+query] {
			hs = append(hs, Hit{SourceIDs: []string{id}})
		}
		return hs, nil
	}}
}

func TestRunOracle(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	perfect := oracle(t, "oracle", ds, 0)
	late := oracle(t, "late", ds, 10) // evidence at ranks 11..
	var progress strings.Builder
	rep, err := Run(context.Background(), ds, []System{perfect, late}, Options{Progress: &progress, PerQuestion: true})
	require.NoError(t, err)
	// 2 systems × 2 modes × (7 messages + 6 queries) + 2 × 3 hooks = 58 steps.
	require.Contains(t, progress.String(), "(58/58)")
	require.True(t, strings.HasSuffix(progress.String(), "\n"), "the bar ends its line")
	require.Equal(t, []Mode{PerConversation, SharedPool}, rep.Settings.Modes, "the default mode is Both")
	require.Equal(t, []string{"oracle", "late"}, rep.Settings.Systems)
	require.Equal(t, KDefault, rep.Settings.K)
	require.Equal(t, 50, rep.Settings.MRRCutoff)
	require.Len(t, rep.Results, 4)
	require.Equal(t, ds.Stats(), rep.Stats)
	require.Equal(t, "fixture.json", rep.Source)

	for _, m := range []Mode{PerConversation, SharedPool} {
		res := rep.Result(m, "oracle")
		require.NotNil(t, res)
		require.Equal(t, 7, res.Messages)
		require.Equal(t, 6, res.Queries)
		all, ok := res.Group(GroupAll)
		require.True(t, ok)
		require.Equal(t, GroupMetrics{
			Group: GroupAll, Questions: 6, Recall5: 1, Recall10: 1,
			P5: (0.4 + 0.2 + 0.4 + 0.2 + 0.4 + 0.2) / 6, MRR: 1, NDCG5: 1,
			Budgets: noDelivery(), // hits without text deliver nothing
		}, all)
		require.Len(t, res.PerQuestion, 6)
		require.Equal(t, 1, res.PerQuestion[0].Score.FirstRelevant)

		l := rep.Result(m, "late")
		la, _ := l.Group(GroupAll)
		require.Zero(t, la.Recall10)
		require.InDelta(t, 1.0/11, la.MRR, 1e-12)
		require.Equal(t, [][]string{
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
			{"nothing"},
		}, l.PerQuestion[0].Top, "the top 10 hits' sources")
	}
	require.Equal(t, 2, rep.Result(PerConversation, "oracle").Tenants)
	require.Equal(t, 1, rep.Result(SharedPool, "oracle").Tenants)
	require.Nil(t, rep.Result(SharedPool, "nobody"))
	_, ok := rep.Result(SharedPool, "oracle").Group("6")
	require.False(t, ok)

	// The call sequence: one Ingest per session in order, then AfterIngest.
	require.Equal(t, []string{
		"ingest conv-a session_1", "ingest conv-a session_2", "ingest conv-a session_10", "after conv-a 2023-03-01T09:05:02Z",
		"ingest conv-b session_1", "after conv-b 2023-06-27T10:37:02Z",
		"ingest locomo-pool conv-a/session_1", "ingest locomo-pool conv-a/session_2", "ingest locomo-pool conv-a/session_10",
		"ingest locomo-pool conv-b/session_1", "after locomo-pool 2023-06-27T10:37:02Z",
	}, perfect.calls)
}

// resetter is a fake system that records resets.
type resetter struct {
	fakeSystem
	resets []string
}

func (r *resetter) ResetTenant(_ context.Context, tenant string) error {
	r.resets = append(r.resets, tenant)
	return nil
}

func TestRunOptions(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	ctx := context.Background()

	// Extra hits beyond K are cut; K bounds MRR.
	many := &fakeSystem{name: "many", answer: func(_, _ string) ([]Hit, error) {
		hs := hits(filler(12)...)
		return append(hs, hits("D1:1", "D1:2", "D2:1", "D10:1", "conv-b/D1:1", "D1:1")...), nil
	}}
	rep, err := Run(ctx, ds, []System{many}, Options{Mode: PerConversation, K: 12})
	require.NoError(t, err)
	require.Equal(t, 12, rep.Settings.MRRCutoff)
	all, _ := rep.Result(PerConversation, "many").Group(GroupAll)
	require.Zero(t, all.MRR, "relevant hits beyond K are ignored")
	require.Len(t, rep.Results, 1)

	r := &resetter{fakeSystem: fakeSystem{name: "reset", answer: func(_, _ string) ([]Hit, error) { return nil, nil }}}
	rep, err = Run(ctx, ds, []System{r}, Options{Mode: SharedPool})
	require.NoError(t, err)
	require.Equal(t, []string{PoolTenant}, r.resets)
	require.Equal(t, []Mode{SharedPool}, rep.Settings.Modes)
	none, _ := rep.Results[0].Group(GroupAll)
	require.Equal(t, GroupMetrics{Group: GroupAll, Questions: 6, Budgets: noDelivery()}, none)
}

// noDelivery returns the budget figures of a system that delivers nothing.
func noDelivery() []BudgetFigures {
	return []BudgetFigures{{Tokens: 250}, {Tokens: 1000}, {Tokens: 2000}}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	ctx := context.Background()
	ok := func() System {
		return &fakeSystem{name: "ok", answer: func(_, _ string) ([]Hit, error) { return nil, nil }}
	}
	boom := errors.New("boom")
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		ds      *Dataset
		systems []System
		opts    Options
		want    string
		is      error
	}{
		{name: "nil dataset", ds: nil, systems: []System{ok()}, is: ErrNoData},
		{name: "no systems", ds: ds, want: "no systems"},
		{name: "nil system", ds: ds, systems: []System{nil}, want: "system 0 is nil"},
		{name: "repeated name", ds: ds, systems: []System{ok(), ok()}, want: `repeated name "ok"`},
		{name: "empty name", ds: ds, systems: []System{&fakeSystem{}}, want: "empty or repeated name"},
		{name: "bad mode", ds: ds, systems: []System{ok()}, opts: Options{Mode: "pool"}, want: `mode "pool"`},
		{name: "K too small", ds: ds, systems: []System{ok()}, opts: Options{K: 5}, want: "K is 5"},
		{name: "K too large", ds: ds, systems: []System{ok()}, opts: Options{K: KMax + 1}, want: "K is 1001"},
		{name: "canceled", ctx: canceled, ds: ds, systems: []System{ok()}, is: context.Canceled},
		{name: "search fails", ds: ds, systems: []System{&fakeSystem{name: "bad", answer: func(_, q string) ([]Hit, error) {
			if strings.HasPrefix(q, "What did Bob") {
				return nil, boom
			}
			return nil, nil
		}}}, is: boom, want: "per-conversation on bad, tenant conv-a, searching conv-a qa[2]"},
		{name: "ingest fails", ds: ds, systems: []System{&fakeSystem{
			name:   "bad",
			answer: func(_, _ string) ([]Hit, error) { return nil, nil },
			ingest: func(_ string, msgs []Message) error {
				if msgs[0].SessionKey == "session_2" {
					return boom
				}
				return nil
			},
		}}, is: boom, want: "tenant conv-a, ingesting session_2"},
	} {
		c := tc.ctx
		if c == nil {
			c = ctx
		}
		rep, err := Run(c, tc.ds, tc.systems, tc.opts)
		require.Error(t, err, tc.name)
		require.Nil(t, rep, tc.name)
		if tc.is != nil {
			require.ErrorIs(t, err, tc.is, tc.name)
		}
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

func TestRunSilentWithoutProgress(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	start := time.Now()
	rep, err := Run(context.Background(), ds, []System{oracle(t, "o", ds, 0)}, Options{})
	require.NoError(t, err)
	require.False(t, rep.StartedAt.Before(start.UTC().Truncate(time.Second)))
	require.Equal(t, time.UTC, rep.StartedAt.Location())
	require.Greater(t, rep.Seconds, 0.0)
	require.Nil(t, rep.Results[0].PerQuestion, "per-question figures only on request")
}
