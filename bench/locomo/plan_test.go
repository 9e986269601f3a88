package locomo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMessageText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		turn Turn
		want string
	}{
		{Turn{Speaker: "Ann", Text: "Hi."}, "Ann: Hi."},
		{Turn{Speaker: "Bob", Text: "Look!", BlipCaption: "a photo of a cat"}, "Bob: Look! [shares image: a photo of a cat]"},
	} {
		require.Equal(t, tc.want, MessageText(tc.turn))
	}
	require.Equal(t, "conv-26/D1:3", NamespacedID("conv-26", "D1:3"))
}

func TestModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   Mode
		want []Mode
	}{
		{PerConversation, []Mode{PerConversation}},
		{SharedPool, []Mode{SharedPool}},
		{Both, []Mode{PerConversation, SharedPool}},
		{"", nil},
		{"pool", nil},
	} {
		got, err := tc.in.Modes()
		if tc.want == nil {
			require.Error(t, err, string(tc.in))
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}

func TestBuildPlanFixture(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	sessionA := time.Date(2022, 5, 8, 13, 56, 0, 0, time.UTC)
	lastA := time.Date(2023, 3, 1, 9, 5, 2, 0, time.UTC)    // session 10 at 9:05 with 2 turns
	lastB := time.Date(2023, 6, 27, 10, 37, 2, 0, time.UTC) // session 1 at 10:37 with 2 turns

	per, err := BuildPlan(ds, PerConversation)
	require.NoError(t, err)
	require.Len(t, per, 2)
	a := per[0]
	require.Equal(t, "conv-a", a.Tenant)
	require.Equal(t, lastA, a.Now)
	require.Equal(t, lastB, per[1].Now)
	require.Len(t, a.Messages, 5)
	require.Equal(t, Message{
		TenantID: "conv-a", SessionKey: "session_1", DiaID: "D1:1", Speaker: "Ann",
		Text: "Ann: Hi Bob, how is the garden?", OccurredAt: sessionA,
	}, a.Messages[0])
	require.Equal(t, Message{
		TenantID: "conv-a", SessionKey: "session_1", DiaID: "D1:2", Speaker: "Bob",
		Text: "Bob: Look at this! [shares image: a photo of a cat]", OccurredAt: sessionA.Add(time.Second),
	}, a.Messages[1])
	var ids, keys []string
	for _, m := range a.Messages {
		ids = append(ids, m.DiaID)
		keys = append(keys, m.SessionKey)
	}
	require.Equal(t, []string{"D1:1", "D1:2", "D2:1", "D10:1", "D10:2"}, ids)
	require.Equal(t, []string{"session_1", "session_1", "session_2", "session_10", "session_10"}, keys)
	require.Equal(t, time.Date(2023, 3, 1, 9, 5, 1, 0, time.UTC), a.Messages[4].OccurredAt)
	// Questions with empty evidence (qa 4, 5, 7) are not planned.
	var idx []int
	for _, q := range a.Queries {
		idx = append(idx, q.Index)
	}
	require.Equal(t, []int{0, 1, 2, 3, 6}, idx)
	require.Equal(t, Query{
		Conversation: "conv-a", Index: 2, Category: 2, Text: "What did Bob show?",
		Evidence: []string{"D10:1", "D1:2"}, EvidenceText: []string{"The dog is named Rex.", "Look at this!"},
	}, a.Queries[2])

	pool, err := BuildPlan(ds, SharedPool)
	require.NoError(t, err)
	require.Len(t, pool, 1)
	p := pool[0]
	require.Equal(t, PoolTenant, p.Tenant)
	require.Equal(t, lastB, p.Now, "the pool's query time is the latest last session")
	require.Len(t, p.Messages, 7)
	require.Equal(t, Message{
		TenantID: PoolTenant, SessionKey: "conv-a/session_1", DiaID: "conv-a/D1:2", Speaker: "Bob",
		Text: "Bob: Look at this! [shares image: a photo of a cat]", OccurredAt: sessionA.Add(time.Second),
	}, p.Messages[1])
	require.Equal(t, "conv-b/D1:1", p.Messages[5].DiaID)
	require.Len(t, p.Queries, 6)
	require.Equal(t, []string{"conv-a/D10:1", "conv-a/D1:2"}, p.Queries[2].Evidence)
	require.Equal(t, []string{"The dog is named Rex.", "Look at this!"}, p.Queries[2].EvidenceText)
	require.Equal(t, []string{"conv-b/D1:1"}, p.Queries[5].Evidence)
	require.Equal(t, []string{"I play the violin."}, p.Queries[5].EvidenceText, "conv-b's D1:1, not conv-a's")
	require.Equal(t, []string{"D10:1", "D1:2"}, ds.Conversations[0].Questions[2].Evidence, "the dataset is not modified")

	for _, tc := range []struct {
		name string
		ds   *Dataset
		mode Mode
	}{
		{"nil dataset", nil, PerConversation},
		{"empty dataset", &Dataset{}, PerConversation},
		{"both", ds, Both},
		{"unknown", ds, "pool"},
	} {
		_, err := BuildPlan(tc.ds, tc.mode)
		require.Error(t, err, tc.name)
	}
}

func TestBuildPlanRealFile(t *testing.T) {
	t.Parallel()
	ds := loadReal(t)
	per, err := BuildPlan(ds, PerConversation)
	require.NoError(t, err)
	require.Len(t, per, 5)
	msgs, queries := 0, 0
	for _, p := range per {
		msgs += len(p.Messages)
		queries += len(p.Queries)
		for i := 1; i < len(p.Messages); i++ {
			require.True(t, p.Messages[i].OccurredAt.After(p.Messages[i-1].OccurredAt), "%s %s", p.Tenant, p.Messages[i].DiaID)
		}
		require.Equal(t, p.Now, p.Messages[len(p.Messages)-1].OccurredAt.Add(time.Second), "Now is 1 s after the last turn")
	}
	require.Equal(t, 2760, msgs)
	require.Equal(t, 997, queries)
	require.Equal(t, time.Date(2023, 10, 22, 9, 55, 0, 0, time.UTC), ds.Conversations[0].LastDate(), "conv-26 ends with session 19")
	require.Equal(t, ds.Conversations[0].QueryTime(), per[0].Now)

	pool, err := BuildPlan(ds, SharedPool)
	require.NoError(t, err)
	require.Len(t, pool, 1)
	ids := map[string]bool{}
	for _, m := range pool[0].Messages {
		require.False(t, ids[m.DiaID], m.DiaID)
		ids[m.DiaID] = true
		require.True(t, m.OccurredAt.Before(pool[0].Now), m.DiaID)
	}
	require.Len(t, ids, 2760)
	require.Len(t, pool[0].Queries, 997)
	texts := map[string]string{}
	for _, c := range ds.Conversations {
		for _, se := range c.Sessions {
			for _, tu := range se.Turns {
				texts[NamespacedID(c.SampleID, tu.DiaID)] = tu.Text
			}
		}
	}
	for _, q := range pool[0].Queries {
		require.Len(t, q.EvidenceText, len(q.Evidence))
		for i, id := range q.Evidence {
			require.True(t, ids[id], id)
			require.Equal(t, texts[id], q.EvidenceText[i], id)
			require.NotEmpty(t, q.EvidenceText[i], id)
		}
	}
}
