package coordinator_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/retrieval"
)

func referenceBM25(t *testing.T, docs []string, q string) []float64 {
	t.Helper()
	m, err := retrieval.NewBM25(docs, nil)
	require.NoError(t, err)
	return m.Score(q)
}
