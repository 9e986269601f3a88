package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"

	"github.com/zenbrain/zb/embed"
)

func cos(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot // the vectors are L2-normalized
}

// The default embedder needs no model: similar texts get a higher cosine
// than unrelated ones.
func Example_hash() {
	e, err := embed.New(nil) // the hash provider, dimension 768
	if err != nil {
		fmt.Println(err)
		return
	}
	vs, err := e.Embed(context.Background(), []string{
		"My sister adopted two cats from the animal shelter.",
		"Two cats were adopted by my sister from a shelter.",
		"The quarterly budget meeting moved to Thursday afternoon.",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Dim(), e.Model())
	para, unrelated := cos(vs[0], vs[1]), cos(vs[0], vs[2])
	fmt.Printf("paraphrase %.2f > unrelated %.2f: %v\n", para, unrelated, para > unrelated)

	_, err = e.Embed(context.Background(), []string{"   "})
	fmt.Println(err)
	// Output:
	// 768 hash-v1-768
	// paraphrase 0.88 > unrelated 0.04: true
	// error embedding text 0: embed: text is empty
}

// An Ollama embedder, here talking to a local stand-in server.
func ExampleNew_ollama() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		embs := make([][]float64, len(req.Input))
		for i := range embs {
			embs[i] = []float64{0.6, 0.8, 0}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": embs})
	}))
	defer srv.Close()

	e, err := embed.New(&embed.Config{Provider: "ollama", BaseURL: srv.URL, Dim: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	vs, err := e.Embed(context.Background(), []string{"hello", "world"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Model(), len(vs), vs[1], math.Round(cos(vs[0], vs[1])*100)/100)

	// A vector of the wrong dimension is an error, never stored.
	e4, err := embed.New(&embed.Config{Provider: "ollama", BaseURL: srv.URL, Dim: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = e4.Embed(context.Background(), []string{"hello"})
	fmt.Println(errors.Is(err, embed.ErrDimensionMismatch))

	// Invalid configuration names the field.
	_, err = embed.New(&embed.Config{Provider: "ollama", BatchSize: -1})
	fmt.Println(err)
	// Output:
	// ollama/nomic-embed-text@3 2 [0.6 0.8 0] 1
	// true
	// embed: BatchSize must be between 1 and 2048, got -1
}
