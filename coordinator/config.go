package coordinator

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/zenbrain/zb/algorithms/emotion"
	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/hebbian"
	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// Embedder turns texts into embeddings. The embed package's embedders satisfy it.
type Embedder interface {
	// Embed returns one embedding of length Dim() per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the embedding dimension.
	Dim() int
	// Model names the model; it is recorded with every embedding.
	Model() string
}

// Clock tells the time. Every time-dependent decision of the coordinator reads it once per
// operation, so simulations and tests advance a virtual clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Defaults of Config.
const (
	// MaxContentBytesDefault is the default Config.MaxContentBytes: 64 KiB.
	MaxContentBytesDefault = 64 << 10
	// CandidatesPerLayerDefault is the default Config.CandidatesPerLayer: K = 8 per signal
	// and layer (DESIGN.md §5).
	CandidatesPerLayerDefault = 8
	// MaxK is the largest k a recall may ask for.
	MaxK = 1000
	// LabilityWindowDefault is the default Config.LabilityWindow: recalled memories are open to
	// reconsolidation for 10 minutes.
	LabilityWindowDefault = 10 * time.Minute
	// SideEffectLockTimeoutDefault is the default Config.SideEffectLockTimeout.
	SideEffectLockTimeoutDefault = 200 * time.Millisecond
	// WorkingSlotsDefault is the number of working-memory slots per (tenant, session): 7.
	WorkingSlotsDefault = 7
	// WorkingRecencyTauDefault is the default Config.WorkingRecencyTau: recency in working
	// memory is exp(−Δt/τ) since a slot was last touched, τ = 30 min.
	WorkingRecencyTauDefault = 30 * time.Minute
	// EmbedBatchSizeDefault is the default Config.EmbedBatchSize.
	EmbedBatchSizeDefault = 256
	// RecallSplitMinDocsDefault is the default Config.RecallSplitMinDocs: recall reads its two
	// candidate halves concurrently in tenants of 1 000 active memories or more (from there the
	// split saves 7–27 % of a read-only recall's time; docs/performance.md, "Recall's halves on
	// two connections").
	RecallSplitMinDocsDefault = 1000
	// StrongEmotionDefault is the default Config.StrongEmotion: content whose
	// max(|valence|, arousal, significance) reaches it routes to the episodic layer.
	StrongEmotionDefault = 0.6
	// DefaultContext is the context of memories stored without one.
	DefaultContext = "default"
)

// Config configures a Coordinator. Pass it to New; zero fields take their defaults.
type Config struct {
	// Pool is the database pool, shared with River. Required.
	Pool *pgxpool.Pool

	// Embedder embeds queries and, unless DeferEmbedding is set, stored content inline (so
	// recall finds new memories by vector without a worker). Nil means lexical-only recall
	// until the worker derives embeddings.
	Embedder Embedder

	// DeferEmbedding leaves the embedding of stored content to the worker's derive job
	// (for remote embedders). Defaults to false: content is embedded inline.
	DeferEmbedding bool

	// Clock tells the time. Defaults to the real clock.
	Clock Clock

	// MaxContentBytes bounds the size of stored content. Defaults to MaxContentBytesDefault
	// (64 KiB); at most 1 MiB, the database's limit.
	MaxContentBytes int

	// CandidatesPerLayer is K, the candidates per layer and signal of a recall. Defaults to
	// CandidatesPerLayerDefault (8).
	CandidatesPerLayer int

	// Ranking configures fusion (layer weights, hybrid α, boost, forgetting floor, dedup).
	// Nil means retrieval's defaults. K is set per call.
	Ranking *retrieval.Config

	// Forgetting configures the forgetting model. Nil means its defaults.
	Forgetting *forgetting.Params

	// Hebbian configures the Two-Factor edges. Nil means their defaults.
	Hebbian *hebbian.Config

	// Routes is the content routing table of Store. Nil means DefaultRoutes.
	Routes []Route

	// FactPatterns is the subject/attribute extraction table for semantic supersession. Nil
	// means DefaultFactPatterns.
	FactPatterns []FactPattern

	// StrongEmotion is the emotional weight at which content routes to the episodic layer.
	// Defaults to StrongEmotionDefault (0.6).
	StrongEmotion float64

	// LabilityWindow is how long recalled memories stay labile. Defaults to
	// LabilityWindowDefault (10 min).
	LabilityWindow time.Duration

	// SideEffectLockTimeout bounds how long recall's side-effect transaction waits for a lock
	// before it gives up its side effects (it never waits on row locks of memories or edges:
	// those are skipped). Defaults to SideEffectLockTimeoutDefault (200 ms).
	SideEffectLockTimeout time.Duration

	// WorkingRecencyTau is τ of working-memory recency exp(−Δt/τ). Defaults to
	// WorkingRecencyTauDefault (30 min).
	WorkingRecencyTau time.Duration

	// EmbedBatchSize is the number of texts per Embed call in StoreBatch. Defaults to
	// EmbedBatchSizeDefault (256).
	EmbedBatchSize int

	// RecallSplitMinDocs is the tenant size (active memories, as the tenant's previous recall
	// counted them) from which Recall reads its lexical and vector candidates at the same time
	// on two pooled connections and then joins them (migration 0026) — when the query has both
	// terms and a vector and the pool can hand out two connections without waiting (idle, or
	// new under its maximum); otherwise recall's candidates are one statement. Defaults to
	// RecallSplitMinDocsDefault (1 000); negative: never.
	RecallSplitMinDocs int64

	// Actor is recorded as the actor of audit events. Defaults to "coordinator".
	Actor string
}

// WithDefaults returns a copy of c with zero fields replaced by their defaults.
func (c *Config) WithDefaults() *Config {
	out := *c
	if out.Clock == nil {
		out.Clock = realClock{}
	}
	out.MaxContentBytes = cmp.Or(out.MaxContentBytes, MaxContentBytesDefault)
	out.CandidatesPerLayer = cmp.Or(out.CandidatesPerLayer, CandidatesPerLayerDefault)
	out.StrongEmotion = cmp.Or(out.StrongEmotion, StrongEmotionDefault)
	out.LabilityWindow = cmp.Or(out.LabilityWindow, LabilityWindowDefault)
	out.SideEffectLockTimeout = cmp.Or(out.SideEffectLockTimeout, SideEffectLockTimeoutDefault)
	out.WorkingRecencyTau = cmp.Or(out.WorkingRecencyTau, WorkingRecencyTauDefault)
	out.EmbedBatchSize = cmp.Or(out.EmbedBatchSize, EmbedBatchSizeDefault)
	out.RecallSplitMinDocs = cmp.Or(out.RecallSplitMinDocs, RecallSplitMinDocsDefault)
	out.Actor = cmp.Or(out.Actor, "coordinator")
	if out.Routes == nil {
		out.Routes = DefaultRoutes()
	}
	if out.FactPatterns == nil {
		out.FactPatterns = DefaultFactPatterns()
	}
	return &out
}

func (c *Config) validate() error {
	switch {
	case c.Pool == nil:
		return fmt.Errorf("%w: Config.Pool is required", ErrInvalidInput)
	case c.MaxContentBytes < 1 || c.MaxContentBytes > 1<<20:
		return fmt.Errorf("%w: Config.MaxContentBytes must be in [1, 1048576], got %d", ErrInvalidInput, c.MaxContentBytes)
	case c.CandidatesPerLayer < 1 || c.CandidatesPerLayer > MaxK:
		return fmt.Errorf("%w: Config.CandidatesPerLayer must be in [1, %d], got %d", ErrInvalidInput, MaxK, c.CandidatesPerLayer)
	case !(c.StrongEmotion > 0 && c.StrongEmotion <= 1):
		return fmt.Errorf("%w: Config.StrongEmotion must be in (0, 1], got %v", ErrInvalidInput, c.StrongEmotion)
	case c.LabilityWindow < 0 || c.SideEffectLockTimeout < 0 || c.WorkingRecencyTau < 0:
		return fmt.Errorf("%w: Config.LabilityWindow, SideEffectLockTimeout and WorkingRecencyTau must not be negative", ErrInvalidInput)
	case c.EmbedBatchSize < 1:
		return fmt.Errorf("%w: Config.EmbedBatchSize must be positive, got %d", ErrInvalidInput, c.EmbedBatchSize)
	case c.Embedder != nil && c.Embedder.Dim() < 1:
		return fmt.Errorf("%w: Config.Embedder has dimension %d", ErrInvalidInput, c.Embedder.Dim())
	}
	for i, r := range c.Routes {
		if err := r.validate(); err != nil {
			return fmt.Errorf("%w: Config.Routes[%d]: %w", ErrInvalidInput, i, err)
		}
	}
	for i, p := range c.FactPatterns {
		if err := p.validate(); err != nil {
			return fmt.Errorf("%w: Config.FactPatterns[%d]: %w", ErrInvalidInput, i, err)
		}
	}
	return nil
}

// Coordinator is zenbrain's MemoryCoordinator: store, recall, context assembly and the
// lifecycle entry points over one database. It is safe for concurrent use.
type Coordinator struct {
	cfg        *Config
	pool       *pgxpool.Pool
	q          *db.Queries
	river      *river.Client[pgx.Tx]
	clock      Clock
	forget     *forgetting.Model
	hebb       *hebbian.Model
	tagger     *emotion.Tagger
	classifier *retrieval.Classifier
	ranking    *retrieval.Config
	priority   *pma.PriorityMap
	triple     *pma.TripleCopyMemory
	router     *router
	facts      *factExtractor

	dimMu sync.Mutex
	dim   int // the install's embedding dimension, once read

	// recallDocs holds, for tenants of at least Config.RecallSplitMinDocs active memories, the
	// count their latest recall saw (tenant → int64): such a tenant's next recall reads its
	// halves concurrently.
	recallDocs sync.Map
}

// New returns a Coordinator for cfg with defaults applied. It does not touch the database; the
// embedding dimension is checked against the install on first use (ErrDimensionMismatch).
func New(cfg *Config) (*Coordinator, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config", ErrInvalidInput)
	}
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	fm, err := forgetting.NewModel(c.Forgetting)
	if err != nil {
		return nil, fmt.Errorf("%w: Config.Forgetting: %w", ErrInvalidInput, err)
	}
	hm, err := hebbian.New(c.Hebbian)
	if err != nil {
		return nil, fmt.Errorf("%w: Config.Hebbian: %w", ErrInvalidInput, err)
	}
	rk := c.Ranking.WithDefaults()
	if _, err := retrieval.Rank(retrieval.ClassGeneral, nil, rk); err != nil {
		return nil, fmt.Errorf("%w: Config.Ranking: %w", ErrInvalidInput, err)
	}
	tg, err := emotion.NewTagger(nil)
	if err != nil {
		return nil, fmt.Errorf("error creating emotion tagger: %w", err)
	}
	cl, err := retrieval.NewClassifier(nil)
	if err != nil {
		return nil, fmt.Errorf("error creating query classifier: %w", err)
	}
	pm, err := pma.NewPriorityMap(nil)
	if err != nil {
		return nil, fmt.Errorf("error creating priority map: %w", err)
	}
	tc, err := pma.NewTripleCopyMemory(nil)
	if err != nil {
		return nil, fmt.Errorf("error creating triple-copy memory: %w", err)
	}
	rt, err := newRouter(c.Routes)
	if err != nil {
		return nil, fmt.Errorf("%w: Config.Routes: %w", ErrInvalidInput, err)
	}
	fx, err := newFactExtractor(c.FactPatterns)
	if err != nil {
		return nil, fmt.Errorf("%w: Config.FactPatterns: %w", ErrInvalidInput, err)
	}
	// No Workers and no Queues: an insert-only client.
	rc, err := river.NewClient(riverpgxv5.New(c.Pool), &river.Config{Schema: "river"})
	if err != nil {
		return nil, fmt.Errorf("error creating River client: %w", err)
	}
	return &Coordinator{
		cfg: c, pool: c.Pool, q: db.New(c.Pool), river: rc, clock: c.Clock, forget: fm, hebb: hm,
		tagger: tg, classifier: cl, ranking: rk, priority: pm, triple: tc, router: rt, facts: fx,
	}, nil
}

// Config returns the coordinator's configuration, defaults applied.
func (c *Coordinator) Config() Config { return *c.cfg }

// embeddingDim returns the install's embedding dimension (zb.config), read once.
func (c *Coordinator) embeddingDim(ctx context.Context) (int, error) {
	c.dimMu.Lock()
	defer c.dimMu.Unlock()
	if c.dim > 0 {
		return c.dim, nil
	}
	v, err := c.q.ConfigGet(ctx, "embedding_dim")
	if err != nil {
		return 0, interpretError("reading the embedding dimension", err)
	}
	var d int
	if _, err := fmt.Sscan(v, &d); err != nil || d < 1 {
		return 0, fmt.Errorf("invalid embedding_dim %q in zb.config", v)
	}
	if c.cfg.Embedder != nil && c.cfg.Embedder.Dim() != d {
		return 0, fmt.Errorf("%w: the embedder has dimension %d, the database %d", ErrDimensionMismatch, c.cfg.Embedder.Dim(), d)
	}
	c.dim = d
	return d, nil
}
