package locomo

import (
	"fmt"

	"github.com/zenbrain/zb/embed"
)

// The embed package's embedders satisfy [Embedder].
var _ Embedder = embed.Embedder(nil)

// Baselines returns the two in-process baselines with their defaults: "bm25"
// ([BM25System]) and "flat" ([FlatSystem] over embed's offline hash embedder
// of dimension embed.DimDefault, 768). The embedder's model name is reported
// through [Describer].
func Baselines() ([]System, error) {
	bm, err := NewBM25System(nil)
	if err != nil {
		return nil, err
	}
	emb, err := embed.New(&embed.Config{Provider: embed.ProviderHash, Dim: embed.DimDefault})
	if err != nil {
		return nil, fmt.Errorf("error creating the hash embedder: %w", err)
	}
	flat, err := NewFlatSystem(emb, nil)
	if err != nil {
		return nil, err
	}
	return []System{bm, flat}, nil
}
