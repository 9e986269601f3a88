package budget

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, Tokens(""))
	require.Equal(t, 0, Tokens(" \n\t"))
	require.Equal(t, 2, Tokens("one"))
	require.Equal(t, 6, Tokens("four words right  here"))
	require.Equal(t, 13, Tokens("a b c d e f g h i j"))
}

// With gains of relevance × size the selection fills the budget in relevance order: a relevant
// long piece is not traded for shorter, weaker ones, and what does not fit is skipped.
func TestSelectByInformationValue(t *testing.T) {
	t.Parallel()
	mk := func(id string, rel float64, tokens int) Piece {
		return Piece{ID: id, Text: id, Score: InformationValue(rel, tokens), Tokens: tokens}
	}
	pieces := []Piece{mk("long-best", 1, 60), mk("short-2nd", 0.9, 10), mk("short-3rd", 0.8, 10), mk("too-big", 0.7, 50), mk("small-5th", 0.6, 15)}
	sel, err := Select(pieces, SelectConfig{Budget: 100, RedundancyPenalty: -1})
	require.NoError(t, err)
	var got []string
	for _, c := range sel.Chosen {
		got = append(got, c.Piece.ID)
	}
	require.Equal(t, []string{"long-best", "short-2nd", "short-3rd", "small-5th"}, got)
	require.Equal(t, 95, sel.Used)

	// By relevance per token alone the long best piece would lose its place to the short ones.
	plain := []Piece{
		{ID: "long-best", Text: "x", Score: 1, Tokens: 60},
		{ID: "short-2nd", Text: "y", Score: 0.9, Tokens: 10},
		{ID: "short-3rd", Text: "z", Score: 0.8, Tokens: 10},
		{ID: "mid", Text: "w", Score: 0.7, Tokens: 45},
	}
	sel, err = Select(plain, SelectConfig{Budget: 70, RedundancyPenalty: -1})
	require.NoError(t, err)
	require.NotEqual(t, "long-best", sel.Chosen[0].Piece.ID)
	require.Equal(t, 0.5, InformationValue(0.5, 0))
}
