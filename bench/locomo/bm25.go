package locomo

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zenbrain/zb/algorithms/retrieval"
)

// BM25NameDefault is the default name of [BM25System].
const BM25NameDefault = "bm25"

// BM25SystemConfig configures [NewBM25System].
type BM25SystemConfig struct {
	// Name is the system's name in reports. Defaults to BM25NameDefault.
	Name string
	// BM25 configures the scorer (k1, b, language); the zero value means
	// retrieval's defaults (k1 1.2, b 0.75, language detected per text).
	BM25 retrieval.BM25Config
}

// BM25System is the lexical baseline: every message is one document, scored
// against the query with Okapi BM25 ([retrieval.BM25] over textproc.Terms).
// Documents scoring 0 (no shared term) are not returned. The index of a
// tenant is built in AfterIngest (or by the first Search after an Ingest). A
// BM25System is safe for concurrent use.
type BM25System struct {
	name    string
	cfg     retrieval.BM25Config
	mu      sync.Mutex
	tenants map[string]*bm25Tenant
}

type bm25Tenant struct {
	docs  []string
	ids   []string
	index *retrieval.BM25 // nil when docs changed since the last build
}

// NewBM25System returns an empty BM25 baseline. A nil cfg means defaults;
// invalid BM25 parameters give an error.
func NewBM25System(cfg *BM25SystemConfig) (*BM25System, error) {
	c := BM25SystemConfig{}
	if cfg != nil {
		c = *cfg
	}
	if _, err := retrieval.NewBM25(nil, &c.BM25); err != nil {
		return nil, fmt.Errorf("error creating BM25 system: %w", err)
	}
	return &BM25System{
		name:    cmp.Or(c.Name, BM25NameDefault),
		cfg:     c.BM25,
		tenants: map[string]*bm25Tenant{},
	}, nil
}

// Name returns the configured name ("bm25" by default).
func (s *BM25System) Name() string { return s.name }

// Describe reports the BM25 parameters.
func (s *BM25System) Describe() string {
	c := s.cfg
	k1, b := c.K1, c.B
	if k1 == 0 {
		k1 = retrieval.BM25K1Default
	}
	switch b {
	case 0:
		b = retrieval.BM25BDefault
	case -1:
		b = 0
	}
	lang := string(c.Lang)
	if lang == "" {
		lang = "detected per text"
	}
	return fmt.Sprintf("Okapi BM25 over turns (k1 %g, b %g, language %s)", k1, b, lang)
}

// Ingest adds each message as one document of tenant.
func (s *BM25System) Ingest(ctx context.Context, tenant string, msgs []Message) error {
	if err := checkIngest(ctx, tenant, msgs); err != nil {
		return fmt.Errorf("error ingesting into %s: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenants[tenant]
	if t == nil {
		t = &bm25Tenant{}
		s.tenants[tenant] = t
	}
	for _, m := range msgs {
		t.docs = append(t.docs, m.Text)
		t.ids = append(t.ids, m.DiaID)
	}
	t.index = nil
	return nil
}

// AfterIngest builds tenant's index.
func (s *BM25System) AfterIngest(ctx context.Context, tenant string, _ time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, _, _, err := s.snapshot(tenant)
	return err
}

// snapshot returns tenant's index (building it if needed) with its ids and
// docs.
func (s *BM25System) snapshot(tenant string) (*retrieval.BM25, []string, []string, error) {
	if tenant == "" {
		return nil, nil, nil, fmt.Errorf("error using %s: %w", s.name, ErrEmptyTenant)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tenants[tenant]
	if t == nil {
		return nil, nil, nil, fmt.Errorf("error using %s: tenant %q: %w", s.name, tenant, ErrUnknownTenant)
	}
	if t.index == nil {
		idx, err := retrieval.NewBM25(t.docs, &s.cfg)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("error indexing tenant %q in %s: %w", tenant, s.name, err)
		}
		t.index = idx
	}
	return t.index, t.ids, t.docs, nil
}

// Search returns the k best-scoring documents of tenant with a positive
// score, best first (ties by ingest order).
func (s *BM25System) Search(ctx context.Context, tenant, query string, _ time.Time, k int) ([]Hit, error) {
	if err := checkSearch(ctx, query, k); err != nil {
		return nil, fmt.Errorf("error searching %s: %w", s.name, err)
	}
	idx, ids, docs, err := s.snapshot(tenant)
	if err != nil {
		return nil, err
	}
	best := topK(idx.Score(query), k, func(x float64) bool { return x > 0 })
	hits := make([]Hit, len(best))
	for i, b := range best {
		hits[i] = Hit{SourceIDs: []string{ids[b.idx]}, Score: b.score, Text: docs[b.idx]}
	}
	return hits, nil
}

// ResetTenant forgets tenant.
func (s *BM25System) ResetTenant(_ context.Context, tenant string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tenants, tenant)
	return nil
}

// checkIngest validates the arguments of an Ingest call.
func checkIngest(ctx context.Context, tenant string, msgs []Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if tenant == "" {
		return ErrEmptyTenant
	}
	for i, m := range msgs {
		switch {
		case m.DiaID == "":
			return fmt.Errorf("message %d: no DiaID: %w", i, ErrBadMessage)
		case strings.TrimSpace(m.Text) == "":
			return fmt.Errorf("message %d (%s): empty text: %w", i, m.DiaID, ErrBadMessage)
		case m.TenantID != "" && m.TenantID != tenant:
			return fmt.Errorf("message %d (%s): tenant %q, ingesting into %q: %w", i, m.DiaID, m.TenantID, tenant, ErrBadMessage)
		}
	}
	return nil
}

// checkSearch validates the arguments of a Search call.
func checkSearch(ctx context.Context, query string, k int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if k <= 0 || k > KMax {
		return fmt.Errorf("k = %d: %w", k, ErrBadK)
	}
	if strings.TrimSpace(query) == "" {
		return ErrEmptyQuery
	}
	return nil
}
