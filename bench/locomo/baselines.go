package locomo

import (
	"fmt"

	"github.com/zenbrain/zb/embed"
)

// The embed package's embedders satisfy [Embedder].
var _ Embedder = embed.Embedder(nil)

// Baselines returns the in-process baselines with their defaults, in this order: the
// yardsticks "bm25" ([BM25System] over single turns), "bm25-w4" and "bm25-w8" (over
// non-overlapping windows of [BM25WindowSmall] and [BM25WindowLarge] turns of one session),
// and "flat" ([FlatSystem] over embed's offline hash embedder of dimension embed.DimDefault,
// 768). The embedder's model name is reported through [Describer].
func Baselines() ([]System, error) {
	var out []System
	for _, w := range []int{1, BM25WindowSmall, BM25WindowLarge} {
		bm, err := NewBM25System(&BM25SystemConfig{Window: w})
		if err != nil {
			return nil, err
		}
		out = append(out, bm)
	}
	emb, err := embed.New(&embed.Config{Provider: embed.ProviderHash, Dim: embed.DimDefault})
	if err != nil {
		return nil, fmt.Errorf("error creating the hash embedder: %w", err)
	}
	flat, err := NewFlatSystem(emb, nil)
	if err != nil {
		return nil, err
	}
	return append(out, flat), nil
}
