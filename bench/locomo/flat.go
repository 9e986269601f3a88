package locomo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Embedder turns texts into vectors, one per text, all of one dimension. The
// embed package's embedders satisfy it.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Flat defaults.
const (
	// FlatNameDefault is the default name of [FlatSystem].
	FlatNameDefault = "flat"
	// FlatBatchDefault is the default number of texts per Embed call.
	FlatBatchDefault = 256
)

// ErrBadEmbedding is returned when an embedder returns the wrong number of
// vectors, vectors of differing dimension, an empty vector, or non-finite
// values.
var ErrBadEmbedding = errors.New("bad embedding")

// FlatConfig configures [NewFlatSystem].
type FlatConfig struct {
	// Name is the system's name in reports. Defaults to FlatNameDefault.
	Name string
	// Batch is the number of texts per Embed call. Defaults to
	// FlatBatchDefault; negative is an error.
	Batch int
}

// FlatSystem is the vector-only baseline: one layer, every message one
// vector, searched exhaustively by cosine similarity (one matrix-vector
// product through gonum's BLAS per query). It returns the k most
// similar messages whatever their similarity (ties by ingest order). A
// FlatSystem is safe for concurrent use.
type FlatSystem struct {
	name    string
	batch   int
	emb     Embedder
	mu      sync.Mutex
	tenants map[string]*flatTenant
}

// flatTenant holds one tenant's vectors as the rows of a row-major matrix
// (unit length, or zero), searched with one matrix-vector product.
type flatTenant struct {
	dim   int
	data  []float32 // len(ids) rows of dim values
	ids   []string
	texts []string
}

// NewFlatSystem returns an empty flat baseline over emb. A nil emb or a
// negative Batch gives an error; a nil cfg means defaults.
func NewFlatSystem(emb Embedder, cfg *FlatConfig) (*FlatSystem, error) {
	if emb == nil {
		return nil, errors.New("error creating flat system: nil embedder")
	}
	c := FlatConfig{}
	if cfg != nil {
		c = *cfg
	}
	if c.Batch < 0 {
		return nil, fmt.Errorf("error creating flat system: Batch is %d, want ≥ 0", c.Batch)
	}
	return &FlatSystem{
		name:    cmp.Or(c.Name, FlatNameDefault),
		batch:   cmp.Or(c.Batch, FlatBatchDefault),
		emb:     emb,
		tenants: map[string]*flatTenant{},
	}, nil
}

// Name returns the configured name ("flat" by default).
func (s *FlatSystem) Name() string { return s.name }

// Ingest embeds msgs in batches and adds them to tenant. Nothing is added
// when an embedding fails.
func (s *FlatSystem) Ingest(ctx context.Context, tenant string, msgs []Message) error {
	if err := checkIngest(ctx, tenant, msgs); err != nil {
		return fmt.Errorf("error ingesting into %s: %w", s.name, err)
	}
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.Text
	}
	vecs, err := s.embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("error ingesting into %s: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenants[tenant]
	if t == nil {
		t = &flatTenant{}
		s.tenants[tenant] = t
	}
	if len(vecs) == 0 {
		return nil
	}
	if t.dim == 0 {
		t.dim = len(vecs[0])
	}
	if t.dim != len(vecs[0]) {
		return fmt.Errorf("error ingesting into %s: dimension %d, tenant has %d: %w",
			s.name, len(vecs[0]), t.dim, ErrBadEmbedding)
	}
	for i, m := range msgs {
		t.data = append(t.data, vecs[i]...)
		t.ids = append(t.ids, m.DiaID)
		t.texts = append(t.texts, m.Text)
	}
	return nil
}

// embed embeds texts in batches and returns unit-length copies.
func (s *FlatSystem) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += s.batch {
		end := min(start+s.batch, len(texts))
		vecs, err := s.emb.Embed(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("error embedding texts %d..%d: %w", start, end-1, err)
		}
		if len(vecs) != end-start {
			return nil, fmt.Errorf("got %d vectors for %d texts: %w", len(vecs), end-start, ErrBadEmbedding)
		}
		for _, v := range vecs {
			u, err := unit(v)
			if err != nil {
				return nil, err
			}
			if len(out) > 0 && len(u) != len(out[0]) {
				return nil, fmt.Errorf("dimension %d after %d: %w", len(u), len(out[0]), ErrBadEmbedding)
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// unit returns v scaled to unit length (a zero vector stays zero); empty or
// non-finite vectors give ErrBadEmbedding.
func unit(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, fmt.Errorf("empty vector: %w", ErrBadEmbedding)
	}
	var ss float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("non-finite component: %w", ErrBadEmbedding)
		}
		ss += f * f
	}
	u := make([]float32, len(v))
	if ss == 0 {
		return u, nil
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		u[i] = float32(float64(x) * inv)
	}
	return u, nil
}

// Describe reports the search and, when the embedder has a Model() string
// method (as the embed package's do), the embedding model.
func (s *FlatSystem) Describe() string {
	if m, ok := s.emb.(interface{ Model() string }); ok {
		return "exhaustive cosine over " + m.Model() + " embeddings"
	}
	return "exhaustive cosine over embeddings"
}

// AfterIngest checks that tenant exists; the flat index needs no work.
func (s *FlatSystem) AfterIngest(ctx context.Context, tenant string, _ time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.snapshot(tenant)
	return err
}

// snapshot returns tenant's matrix, ids and texts (append-only slices whose
// prefix is safe to read after the lock is released).
func (s *FlatSystem) snapshot(tenant string) (flatTenant, error) {
	if tenant == "" {
		return flatTenant{}, fmt.Errorf("error using %s: %w", s.name, ErrEmptyTenant)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenants[tenant]
	if t == nil {
		return flatTenant{}, fmt.Errorf("error using %s: tenant %q: %w", s.name, tenant, ErrUnknownTenant)
	}
	return *t, nil
}

// Search embeds query and returns tenant's k messages of highest cosine
// similarity, best first.
func (s *FlatSystem) Search(ctx context.Context, tenant, query string, _ time.Time, k int) ([]Hit, error) {
	if err := checkSearch(ctx, query, k); err != nil {
		return nil, fmt.Errorf("error searching %s: %w", s.name, err)
	}
	t, err := s.snapshot(tenant)
	if err != nil {
		return nil, err
	}
	qv, err := s.embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("error searching %s: %w", s.name, err)
	}
	q := qv[0]
	n := len(t.ids)
	if n == 0 {
		return []Hit{}, nil
	}
	if t.dim != len(q) {
		return nil, fmt.Errorf("error searching %s: query dimension %d, tenant has %d: %w",
			s.name, len(q), t.dim, ErrBadEmbedding)
	}
	dots := make([]float32, n)
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: n, Cols: t.dim, Stride: t.dim, Data: t.data[:n*t.dim]},
		blas32.Vector{N: t.dim, Inc: 1, Data: q}, 0,
		blas32.Vector{N: n, Inc: 1, Data: dots})
	sims := make([]float64, n)
	for i, d := range dots {
		sims[i] = float64(d)
	}
	best := topK(sims, k, nil)
	hits := make([]Hit, len(best))
	for i, b := range best {
		hits[i] = Hit{SourceIDs: []string{t.ids[b.idx]}, Score: b.score, Text: t.texts[b.idx]}
	}
	return hits, nil
}

// ResetTenant forgets tenant.
func (s *FlatSystem) ResetTenant(_ context.Context, tenant string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tenants, tenant)
	return nil
}
