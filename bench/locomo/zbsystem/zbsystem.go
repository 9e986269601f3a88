package zbsystem

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/jobs"
)

// Names of the two variants reported side by side (DESIGN.md §9).
const (
	// NameDefault is the name of the system with its lifecycle.
	NameDefault = "zenbrain"
	// NameLifecycleOff is the name of the same system with the lifecycle off.
	NameLifecycleOff = "zenbrain-nolife"
)

// System assembles its own context blocks.
var _ locomo.ContextSystem = (*System)(nil)

// MaxSourceDepth bounds how many derivation steps [System.Search] follows from a derived
// memory back to the turns it came from.
const MaxSourceDepth = 8

// sessionNamespace is the UUID namespace of the session ids derived from session keys.
var sessionNamespace = uuid.MustParse("6f1c9a52-3d0e-5b8e-9a57-2f4c1b7e8d10")

// ErrNoPool is returned by [New] without a database pool.
var ErrNoPool = errors.New("zbsystem: Config.Pool is required")

// Lifecycle runs the memory lifecycle of one tenant at time now (the virtual clock is already
// set to now): the work the worker schedules between sessions (derivation, session
// consolidation, decay, review, sleep). It must run through the coordinator's entry points, the
// same code the worker uses.
type Lifecycle func(ctx context.Context, c *coordinator.Coordinator, tenant string, now time.Time) error

// Config configures [New].
type Config struct {
	// Pool is the database (migrated, with pgvector). Required.
	Pool *pgxpool.Pool
	// Name is the system's name in reports. Defaults to NameDefault with a Lifecycle and to
	// NameLifecycleOff without.
	Name string
	// Embedder embeds turns and queries. Nil means the offline hash embedder of dimension
	// embed.DimDefault (768), which must match the database's embedding dimension.
	Embedder coordinator.Embedder
	// Ranking configures recall fusion; nil means retrieval's defaults.
	Ranking *retrieval.Config
	// CandidatesPerLayer is passed to the coordinator; 0 means its default.
	CandidatesPerLayer int
	// Lifecycle runs between sessions and before the questions; nil means the lifecycle is
	// off.
	Lifecycle Lifecycle
	// SideEffects lets Search write recall's side effects (access counts, stability growth,
	// co-activation). Defaults to false: evaluation is read-only.
	SideEffects bool
	// Disabled are ablation registry ids (coordinator.AlgorithmIDs) switched off for every
	// tenant ResetTenant prepares; an unknown id makes New fail. An ablation arm is usually
	// named [ArmName] of the id it removes.
	Disabled []string
}

// ArmName returns the name of the ablation arm that is the "zenbrain" system with the registry
// mechanism id switched off: "zenbrain-no-<id>".
func ArmName(id string) string { return NameDefault + "-no-" + id }

// Arms returns one LoCoMo ablation arm per registry id of ids, in the registry's order
// (coordinator.AlgorithmIDs; a repeated id counts once): the system of base with that id
// added to Disabled, named [ArmName] of the id. An unknown id gives an error listing the known
// ones.
func Arms(base *Config, ids []string) ([]locomo.AblationArm, error) {
	if base == nil {
		return nil, ErrNoPool
	}
	if err := CheckAlgorithms(ids); err != nil {
		return nil, fmt.Errorf("zbsystem: ablation arms: %w", err)
	}
	var arms []locomo.AblationArm
	for _, id := range coordinator.AlgorithmIDs() {
		if !slices.Contains(ids, id) {
			continue
		}
		cfg := *base
		cfg.Name = ArmName(id)
		cfg.Disabled = append(slices.Clone(base.Disabled), id)
		s, err := New(&cfg)
		if err != nil {
			return nil, err
		}
		arms = append(arms, locomo.AblationArm{ID: id, System: s})
	}
	return arms, nil
}

// CheckAlgorithms returns an error naming the first id of ids that is not in the ablation
// registry, with the known ones.
func CheckAlgorithms(ids []string) error {
	known := coordinator.AlgorithmIDs()
	for _, id := range ids {
		if !slices.Contains(known, id) {
			return fmt.Errorf("unknown algorithm %q (known: %s)", id, strings.Join(known, ", "))
		}
	}
	return nil
}

// clock is the virtual clock shared by the coordinator and the system.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// System is the zenbrain system under test. Calls for one tenant must not overlap (the
// harness guarantees it); the virtual clock is shared, so a System serves one tenant at a time.
type System struct {
	name  string
	cfg   Config
	pool  *pgxpool.Pool
	coord *coordinator.Coordinator
	clock *clock
	emb   coordinator.Embedder

	mu       sync.Mutex
	ingested map[string]int // sessions ingested per tenant
}

// New returns a System over cfg.Pool.
func New(cfg *Config) (*System, error) {
	if cfg == nil || cfg.Pool == nil {
		return nil, ErrNoPool
	}
	c := *cfg
	if err := CheckAlgorithms(c.Disabled); err != nil {
		return nil, fmt.Errorf("zbsystem: Config.Disabled: %w", err)
	}
	c.Disabled = slices.Clone(c.Disabled)
	if c.Embedder == nil {
		e, err := embed.New(&embed.Config{Provider: embed.ProviderHash, Dim: embed.DimDefault})
		if err != nil {
			return nil, fmt.Errorf("error creating the hash embedder: %w", err)
		}
		c.Embedder = e
	}
	def := NameLifecycleOff
	if c.Lifecycle != nil {
		def = NameDefault
	}
	c.Name = cmp.Or(c.Name, def)
	clk := &clock{t: time.Unix(0, 0).UTC()}
	co, err := coordinator.New(&coordinator.Config{
		Pool: c.Pool, Embedder: c.Embedder, Clock: clk,
		Ranking: c.Ranking, CandidatesPerLayer: c.CandidatesPerLayer, Actor: "bench-locomo",
	})
	if err != nil {
		return nil, fmt.Errorf("error creating the coordinator: %w", err)
	}
	return &System{
		name: c.Name, cfg: c, pool: c.Pool, coord: co, clock: clk, emb: c.Embedder,
		ingested: map[string]int{},
	}, nil
}

// Name returns the system's name.
func (s *System) Name() string { return s.name }

// Describe reports the embedder, the lifecycle and the recall settings.
func (s *System) Describe() string {
	life := "lifecycle off"
	if s.cfg.Lifecycle != nil {
		life = "lifecycle between sessions"
	}
	if len(s.cfg.Disabled) > 0 {
		life += ", switched off: " + strings.Join(s.cfg.Disabled, ", ")
	}
	return fmt.Sprintf("coordinator Store/Recall on PostgreSQL (embedder %s, dim %d, %s, read-only recall: %v)",
		s.emb.Model(), s.emb.Dim(), life, !s.cfg.SideEffects)
}

// Coordinator returns the coordinator the system drives.
func (s *System) Coordinator() *coordinator.Coordinator { return s.coord }

// Tenant returns the database tenant of a benchmark tenant: "<name>:<tenant>".
func (s *System) Tenant(tenant string) string { return s.name + ":" + tenant }

// SessionID returns the session id of a benchmark session key in tenant.
func SessionID(tenant, sessionKey string) uuid.UUID {
	return uuid.NewSHA1(sessionNamespace, []byte(tenant+"\x00"+sessionKey))
}

// ResetTenant deletes the tenant's rows (cascading) and its queued River jobs, marks the fresh
// tenant's lifecycle manual (coordinator.LifecycleManual): no running worker touches it, and
// switches off the mechanisms of Config.Disabled for it.
func (s *System) ResetTenant(ctx context.Context, tenant string) error {
	if tenant == "" {
		return locomo.ErrEmptyTenant
	}
	t := s.Tenant(tenant)
	if _, err := s.pool.Exec(ctx, "DELETE FROM river.river_job WHERE args ->> 'tenant_id' = $1", t); err != nil {
		return fmt.Errorf("error deleting the River jobs of %s: %w", t, err)
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM zb.tenant WHERE id = $1", t); err != nil {
		return fmt.Errorf("error deleting tenant %s: %w", t, err)
	}
	// The benchmark drives the tenant's lifecycle on its virtual clock: a running worker must
	// not consolidate or decay it at wall-clock time.
	if err := s.coord.SetLifecycle(ctx, t, coordinator.LifecycleManual); err != nil {
		return fmt.Errorf("error taking tenant %s out of the worker's sweeps: %w", t, err)
	}
	for _, id := range s.cfg.Disabled {
		if err := s.coord.SetAlgorithm(ctx, t, id, false); err != nil {
			return fmt.Errorf("error switching %s off for tenant %s: %w", id, t, err)
		}
	}
	s.mu.Lock()
	delete(s.ingested, tenant)
	s.mu.Unlock()
	return nil
}

// Ingest stores one session's messages at the session's time, after running the lifecycle
// (when configured) at that time if an earlier session of the tenant was ingested.
func (s *System) Ingest(ctx context.Context, tenant string, msgs []locomo.Message) error {
	if tenant == "" {
		return locomo.ErrEmptyTenant
	}
	if len(msgs) == 0 {
		return nil
	}
	t := s.Tenant(tenant)
	items := make([]coordinator.StoreInput, len(msgs))
	last := msgs[0].OccurredAt
	for i, m := range msgs {
		if m.DiaID == "" || m.Text == "" || m.TenantID != tenant {
			return fmt.Errorf("error ingesting message %d: %w", i, locomo.ErrBadMessage)
		}
		sid := SessionID(tenant, m.SessionKey)
		at := m.OccurredAt
		md := map[string]any{"dia_id": m.DiaID, "session_key": m.SessionKey}
		if m.Speaker != "" {
			md[coordinator.MetadataSpeaker] = m.Speaker
		}
		items[i] = coordinator.StoreInput{
			TenantID: t, Content: m.Text, SessionID: &sid, OccurredAt: &at,
			ExternalID: m.DiaID, Metadata: md,
		}
		if at.After(last) {
			last = at
		}
	}
	s.mu.Lock()
	earlier := s.ingested[tenant] > 0
	s.mu.Unlock()
	if earlier && s.cfg.Lifecycle != nil {
		if err := s.runLifecycle(ctx, t, msgs[0].OccurredAt); err != nil {
			return err
		}
	}
	s.clock.set(last)
	if _, err := s.coord.StoreBatch(ctx, items); err != nil {
		return fmt.Errorf("error storing session %s of %s: %w", msgs[0].SessionKey, t, err)
	}
	s.mu.Lock()
	s.ingested[tenant]++
	s.mu.Unlock()
	return nil
}

func (s *System) runLifecycle(ctx context.Context, tenant string, now time.Time) error {
	s.clock.set(now)
	if err := s.cfg.Lifecycle(ctx, s.coord, tenant, now); err != nil {
		return fmt.Errorf("error running the lifecycle of %s at %s: %w", tenant, now.Format(time.RFC3339), err)
	}
	return nil
}

// AfterIngest runs the lifecycle (when configured) at the query time.
func (s *System) AfterIngest(ctx context.Context, tenant string, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.cfg.Lifecycle == nil {
		return nil
	}
	return s.runLifecycle(ctx, s.Tenant(tenant), now)
}

// Search recalls the top k memories of tenant for query at time now and maps them to dia_ids.
func (s *System) Search(ctx context.Context, tenant, query string, now time.Time, k int) ([]locomo.Hit, error) {
	if k < 1 || k > locomo.KMax {
		return nil, locomo.ErrBadK
	}
	return s.SearchOpts(ctx, tenant, query, now, &coordinator.RecallOpts{K: k, ReadOnly: !s.cfg.SideEffects})
}

// SearchOpts is Search with explicit recall options (for ablations: time filter, layers, deep
// recall); opts.K is the number of hits.
func (s *System) SearchOpts(ctx context.Context, tenant, query string, now time.Time, opts *coordinator.RecallOpts) ([]locomo.Hit, error) {
	if opts == nil || opts.K < 1 || opts.K > locomo.KMax {
		return nil, locomo.ErrBadK
	}
	s.clock.set(now)
	t := s.Tenant(tenant)
	res, err := s.coord.Recall(ctx, t, query, opts)
	if err != nil {
		return nil, fmt.Errorf("error recalling from %s: %w", t, err)
	}
	hits := make([]locomo.Hit, 0, len(res.Results))
	for _, r := range res.Results {
		ids, err := s.diaIDs(ctx, tenant, r)
		if err != nil {
			return nil, err
		}
		hits = append(hits, locomo.Hit{SourceIDs: ids, Score: r.Score, Text: r.Line()})
	}
	return hits, nil
}

// Context returns the coordinator's context block for query from tenant at time now within
// budgetTokens estimated tokens (Coordinator.ContextWith, read-only unless SideEffects is set).
func (s *System) Context(ctx context.Context, tenant, query string, now time.Time, budgetTokens int) (string, error) {
	s.clock.set(now)
	t := s.Tenant(tenant)
	b, err := s.coord.ContextWith(ctx, t, query, &coordinator.ContextOpts{Budget: budgetTokens, ReadOnly: !s.cfg.SideEffects})
	if err != nil {
		return "", fmt.Errorf("error assembling the context of %s: %w", t, err)
	}
	return b.Text, nil
}

// diaIDs returns the dia_ids a recalled memory carries: its external id, or the union of its
// sources' dia_ids (followed up to MaxSourceDepth steps).
func (s *System) diaIDs(ctx context.Context, tenant string, r coordinator.Result) ([]string, error) {
	if r.Provenance.ExternalID != "" && len(r.Provenance.SourceIDs) == 0 {
		return []string{r.Provenance.ExternalID}, nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	add(r.Provenance.ExternalID)
	frontier := slices.Clone(r.Provenance.SourceIDs)
	visited := map[int64]bool{r.ID: true}
	for depth := 0; depth < MaxSourceDepth && len(frontier) > 0; depth++ {
		rows, err := s.pool.Query(ctx, `SELECT id, coalesce(external_id, ''), source_ids FROM zb.memory
			WHERE tenant_id = $1 AND id = ANY ($2)`, s.Tenant(tenant), frontier)
		if err != nil {
			return nil, fmt.Errorf("error resolving sources: %w", err)
		}
		var next []int64
		for rows.Next() {
			var id int64
			var ext string
			var src []int64
			if err := rows.Scan(&id, &ext, &src); err != nil {
				rows.Close()
				return nil, fmt.Errorf("error resolving sources: %w", err)
			}
			visited[id] = true
			add(ext)
			for _, x := range src {
				if !visited[x] {
					next = append(next, x)
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("error resolving sources: %w", err)
		}
		frontier = next
	}
	slices.Sort(out)
	return out, nil
}

// Lifecycle defaults.
const (
	// SessionIdleDefault is the idle time after which [CoordinatorLifecycle] ends a session and
	// consolidates it (the worker's idle-session sweep).
	SessionIdleDefault = time.Hour
	// MaxDeriveRounds bounds the Derive calls of one lifecycle run (each handles at most
	// coordinator.DeriveMaxPerCall memories).
	MaxDeriveRounds = 1000
)

// CoordinatorLifecycle is the lifecycle of the deployed system, through the coordinator's entry
// points the worker uses, at the clock's time now:
//
//  1. Derive every pending memory (entities, mentions, edges, triple copies, review states,
//     supersession, contradiction and reconsolidation checks);
//  2. end every open session of the tenant idle for SessionIdleDefault and Consolidate it
//     (turns become episodes, facts and schemas carrying the union of their sources);
//  3. Derive what consolidation created;
//  4. DecayDue (archive faded memories that are carried elsewhere or not worth keeping) and
//     ReviewDue (FSRS reviews with vmPFC coupling);
//  5. one nightly Sleep (Simulation-Selection, dual-process schemas, spectral health).
func CoordinatorLifecycle(ctx context.Context, c *coordinator.Coordinator, tenant string, _ time.Time) error {
	if err := deriveAll(ctx, c, tenant); err != nil {
		return err
	}
	sessions, err := c.TenantIdleSessions(ctx, tenant, SessionIdleDefault, coordinator.MaxLifecycleLimit)
	if err != nil {
		return fmt.Errorf("error listing idle sessions: %w", err)
	}
	for _, se := range sessions {
		if se.TenantID != tenant {
			continue
		}
		if _, err := c.EndSession(ctx, tenant, se.ID); err != nil {
			return fmt.Errorf("error ending session %s: %w", se.ID, err)
		}
		if _, err := c.Consolidate(ctx, tenant, se.ID, nil); err != nil {
			return fmt.Errorf("error consolidating session %s: %w", se.ID, err)
		}
	}
	if err := deriveAll(ctx, c, tenant); err != nil {
		return err
	}
	if _, err := c.DecayDue(ctx, tenant, 0, nil); err != nil {
		return fmt.Errorf("error running decay: %w", err)
	}
	if _, err := c.ReviewDue(ctx, tenant, 0, nil); err != nil {
		return fmt.Errorf("error running reviews: %w", err)
	}
	if _, err := c.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "benchmark"}, nil); err != nil {
		return fmt.Errorf("error running sleep: %w", err)
	}
	return nil
}

func deriveAll(ctx context.Context, c *coordinator.Coordinator, tenant string) error {
	for i := 0; i < MaxDeriveRounds; i++ {
		r, err := c.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
		if err != nil {
			return fmt.Errorf("error deriving: %w", err)
		}
		if !r.More || len(r.Derived) == 0 {
			return nil
		}
	}
	return nil
}

// DefaultLifecycle is the lifecycle of the "zenbrain" system: [CoordinatorLifecycle].
var DefaultLifecycle Lifecycle = CoordinatorLifecycle

// ErrLifecycleUnavailable is returned when a lifecycle is asked for but none is configured.
var ErrLifecycleUnavailable = errors.New("zbsystem: no lifecycle is configured")
