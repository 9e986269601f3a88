package retrieval

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/textproc"
)

func TestBM25(t *testing.T) {
	t.Parallel()
	docs := []string{"The cat sat on the mat", "The dog sat", "Cats and dogs"}
	m, err := NewBM25(docs, &BM25Config{Lang: textproc.English})
	require.NoError(t, err)
	require.Equal(t, 3, m.Len())
	// Terms: [cat sat mat], [dog sat], [cat dog]; N = 3, avgdl = 7/3.
	// IDF(cat) = ln(1 + 1.5/2.5) = ln 1.6.
	require.InDelta(t, math.Log(1.6), m.IDF("cat"), 1e-12)
	got := m.Score("cats")
	require.InDelta(t, 0.42081720292932145, got[0], 1e-12) // tf 1, |d| 3
	require.InDelta(t, 0.0, got[1], 1e-12)
	require.InDelta(t, 0.4991762683023676, got[2], 1e-12) // tf 1, |d| 2: shorter doc wins
	// Repeated query terms count once; stop words score nothing.
	require.Equal(t, got, m.Score("cat cats CAT"))
	require.Equal(t, []float64{0, 0, 0}, m.Score("the and on"))
	require.Equal(t, []float64{0, 0, 0}, m.Score(""))
}

func TestBM25German(t *testing.T) {
	t.Parallel()
	docs := []string{"Die Häuser am See", "Das Haus im Wald", "Ein Auto"}
	m, err := NewBM25(docs, nil) // language detected per text
	require.NoError(t, err)
	got := m.Score("Häuser")
	require.Greater(t, got[0], 0.0)
	require.Greater(t, got[1], 0.0, "haus and häuser share the stem haus")
	require.InDelta(t, 0.0, got[2], 1e-12)
}

func TestBM25Config(t *testing.T) {
	t.Parallel()
	_, err := NewBM25(nil, &BM25Config{K1: -1})
	require.ErrorContains(t, err, "K1")
	_, err = NewBM25(nil, &BM25Config{B: 2})
	require.ErrorContains(t, err, "B is 2")
	_, err = NewBM25(nil, &BM25Config{K1: math.NaN()})
	require.ErrorContains(t, err, "K1")
	m, err := NewBM25(nil, nil)
	require.NoError(t, err)
	require.Empty(t, m.Score("anything"))
	// b = 0 (sentinel −1) removes length normalization: equal tf, equal score.
	m, err = NewBM25([]string{"cat", "cat mat sat bat"}, &BM25Config{B: -1, Lang: textproc.English})
	require.NoError(t, err)
	s := m.Score("cat")
	require.InDelta(t, s[0], s[1], 1e-12)
}
