package locomo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zenbrain/zb/algorithms/retrieval"
)

// BM25NameDefault is the default name of [BM25System] over single turns; over windows of n
// turns the default name is "bm25-w<n>" ([BM25WindowName]).
const BM25NameDefault = "bm25"

// The window sizes of the yardsticks [Baselines] returns besides single turns.
const (
	// BM25WindowSmall is the smaller window: 4 consecutive turns ("bm25-w4").
	BM25WindowSmall = 4
	// BM25WindowLarge is the larger window: 8 consecutive turns ("bm25-w8").
	BM25WindowLarge = 8
)

// BM25WindowName returns the default name of a [BM25System] over windows of n turns:
// "bm25" for n ≤ 1, else "bm25-w<n>".
func BM25WindowName(n int) string {
	if n <= 1 {
		return BM25NameDefault
	}
	return fmt.Sprintf("%s-w%d", BM25NameDefault, n)
}

// BM25SystemConfig configures [NewBM25System].
type BM25SystemConfig struct {
	// Name is the system's name in reports. Defaults to BM25WindowName(Window).
	Name string
	// Window is the number of consecutive turns of one session per document: the turns of
	// each session (as one Ingest call hands them over) are cut into non-overlapping windows
	// of Window turns, the last one possibly shorter. A window's text is its turns' texts, one
	// per line, and its source ids are its turns' dia_ids. 0 or 1 means single turns; negative
	// values are an error.
	Window int
	// BM25 configures the scorer (k1, b, language); the zero value means
	// retrieval's defaults (k1 1.2, b 0.75, language detected per text).
	BM25 retrieval.BM25Config
}

// BM25System is the lexical baseline: every message (or every window of consecutive
// messages of one session, see [BM25SystemConfig.Window]) is one document, scored against the
// query with Okapi BM25 ([retrieval.BM25] over textproc.Terms).
// Documents scoring 0 (no shared term) are not returned. The index of a
// tenant is built in AfterIngest (or by the first Search after an Ingest). A
// BM25System is safe for concurrent use.
type BM25System struct {
	name    string
	cfg     retrieval.BM25Config
	window  int
	mu      sync.Mutex
	tenants map[string]*bm25Tenant
}

type bm25Tenant struct {
	docs  []string
	ids   [][]string      // source ids per document
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
	if c.Window < 0 {
		return nil, fmt.Errorf("error creating BM25 system: window %d is negative", c.Window)
	}
	return &BM25System{
		name:    cmp.Or(c.Name, BM25WindowName(c.Window)),
		cfg:     c.BM25,
		window:  max(c.Window, 1),
		tenants: map[string]*bm25Tenant{},
	}, nil
}

// Name returns the configured name ("bm25", "bm25-w4", ... by default).
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
	over := "turns"
	if s.window > 1 {
		over = fmt.Sprintf("non-overlapping windows of %d turns of one session", s.window)
	}
	return fmt.Sprintf("Okapi BM25 over %s (k1 %g, b %g, language %s)", over, k1, b, lang)
}

// Ingest adds the messages to tenant's documents: each message, or each window of consecutive
// messages of one session (windows never span two sessions or two Ingest calls).
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
	for start := 0; start < len(msgs); {
		end := start + 1
		for end < len(msgs) && end-start < s.window && msgs[end].SessionKey == msgs[start].SessionKey {
			end++
		}
		lines := make([]string, 0, end-start)
		ids := make([]string, 0, end-start)
		for _, m := range msgs[start:end] {
			lines = append(lines, m.Text)
			ids = append(ids, m.DiaID)
		}
		t.docs = append(t.docs, strings.Join(lines, "\n"))
		t.ids = append(t.ids, ids)
		start = end
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
func (s *BM25System) snapshot(tenant string) (*retrieval.BM25, [][]string, []string, error) {
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
		hits[i] = Hit{SourceIDs: slices.Clone(ids[b.idx]), Score: b.score, Text: docs[b.idx]}
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
