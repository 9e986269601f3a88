package coordinator

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Delivery never spends the reader's budget twice on one line, and an episode is delivered as
// its best line with one neighbour on each side.
func TestDeliverResults(t *testing.T) {
	t.Parallel()
	episode := Result{ID: 1, Kind: "episode", Content: "A: hello\nB: I researched adoption agencies\nA: why?\nB: I want a family\nA: nice"}
	turn := Result{ID: 2, Kind: "interaction", Content: "B: I researched adoption agencies"}
	fact := Result{ID: 3, Kind: "fact", Content: "B:  I researched   adoption agencies"}
	other := Result{ID: 4, Kind: "interaction", Content: "A: nice"}
	lone := Result{ID: 5, Kind: "interaction", Content: "C: something else"}
	score := map[string]float64{lineKey(turn.Content): 0.9, lineKey("A: why?"): 0.95}

	// The turn first: the fact stating the same text is left out, the episode delivers its
	// best remaining line (the candidate "A: why?") with its fresh neighbour.
	got := deliverResults([]Result{turn, fact, episode, other, lone}, 10, []string{"research"}, score, false)
	require.Len(t, got, 4)
	require.Equal(t, []int64{2, 1, 4, 5}, []int64{got[0].ID, got[1].ID, got[2].ID, got[3].ID})
	require.Equal(t, "A: why?\nB: I want a family", got[1].Content)
	require.True(t, got[1].Excerpt)

	// The episode first: its best line by the query's terms when no line was a candidate; the
	// turn it delivered is not delivered again, "A: nice" (outside the excerpt) still is.
	got = deliverResults([]Result{episode, turn, other}, 10, []string{"famili"}, nil, false)
	require.Len(t, got, 2)
	require.Equal(t, "A: why?\nB: I want a family\nA: nice", got[0].Content)
	require.Equal(t, int64(2), got[1].ID)

	// k bounds what is delivered; whole delivers the ranking as it is.
	require.Len(t, deliverResults([]Result{turn, fact, lone}, 1, nil, nil, false), 1)
	whole := deliverResults([]Result{episode, turn, fact}, 10, nil, nil, true)
	require.Len(t, whole, 3)
	require.Equal(t, episode.Content, whole[0].Content)
	require.False(t, whole[0].Excerpt)

	// A one-line episode is delivered whole.
	one := Result{ID: 6, Kind: "episode", Content: "A: only line"}
	got = deliverResults([]Result{one}, 5, nil, nil, false)
	require.Equal(t, "A: only line", got[0].Content)
	require.False(t, got[0].Excerpt)
}

// A delivered memory says when it happened and what its relative dates mean, and its content
// stays whole.
func TestResultLine(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	md, err := json.Marshal(map[string]any{"resolved_dates": []map[string]string{
		{"text": "yesterday", "from": "2023-05-07T00:00:00Z", "to": "2023-05-08T00:00:00Z"},
		{"text": "last week", "from": "2023-05-01T00:00:00Z", "to": "2023-05-08T00:00:00Z"},
		{"text": "broken", "from": "", "to": ""},
	}})
	require.NoError(t, err)
	r := Result{Content: "Caroline: I went to a LGBTQ support group yesterday", When: whenOf(nil, nil, &at, at.Add(time.Hour)), Dates: resolvedDates(md)}
	require.Len(t, r.Dates, 2)
	require.Equal(t, "[2023-05-08] Caroline: I went to a LGBTQ support group yesterday (yesterday = 2023-05-07)", r.Line())

	from, to := at, at.Add(49*time.Hour)
	require.Equal(t, "2023-05-08..2023-05-10", whenOf(&from, &to, &at, at))
	require.Equal(t, "2023-05-08", whenOf(nil, nil, nil, at))
	require.Equal(t, "last week = 2023-05-01..2023-05-07", r.Dates[1].String())
	require.Nil(t, resolvedDates(json.RawMessage(`{"resolved_dates": 3}`)))
	require.Equal(t, "plain", (&Result{Content: "plain"}).Line())
}
