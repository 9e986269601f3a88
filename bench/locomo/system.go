package locomo

import (
	"container/heap"
	"context"
	"errors"
	"time"
)

// System is a memory system under test. Run calls, for each tenant of a
// plan: ResetTenant (when the system is a [TenantResetter]), Ingest once per
// session with that session's messages in order, AfterIngest once, then
// Search once per question. Calls for one tenant never overlap.
type System interface {
	// Name returns the system's name in reports; names must be unique within
	// one [Run].
	Name() string
	// Ingest stores msgs (all of one session of tenant, in order). Every
	// memory the system builds must keep the DiaIDs of the messages it came
	// from as its source ids.
	Ingest(ctx context.Context, tenant string, msgs []Message) error
	// AfterIngest is the lifecycle hook called once per tenant after all
	// sessions were ingested, with the query time: a place for sleep,
	// consolidation, decay or indexing. Baselines do nothing or build their
	// index here.
	AfterIngest(ctx context.Context, tenant string, now time.Time) error
	// Search returns at most k memories of tenant for query at time now, best
	// first.
	Search(ctx context.Context, tenant, query string, now time.Time, k int) ([]Hit, error)
}

// TenantResetter is implemented by systems that keep state across runs (a
// database, say). Run calls ResetTenant before ingesting a tenant so that a
// repeated run starts from an empty tenant.
type TenantResetter interface {
	// ResetTenant removes everything stored for tenant; an unknown tenant is
	// not an error.
	ResetTenant(ctx context.Context, tenant string) error
}

// Describer is implemented by systems that can say how they are set up (the
// embedding model, say); [Run] records the description in
// [Settings.Descriptions].
type Describer interface {
	// Describe returns a one-line description of the system's setup.
	Describe() string
}

// Hit is one retrieved memory.
type Hit struct {
	// SourceIDs are the dia_ids (namespaced in the shared pool) of the
	// messages the memory came from; the hit is relevant iff they intersect
	// the question's evidence.
	SourceIDs []string `json:"source_ids"`
	// Score is the system's score; only the order of hits matters to the
	// metrics.
	Score float64 `json:"score"`
	// Text is the memory's text as an agent would receive it: the budget
	// figures pack it ([Pack]); a hit without text delivers nothing.
	Text string `json:"text,omitempty"`
}

// KMax is the largest k a search may ask for.
const KMax = 1000

// Errors returned by the baseline systems (and usable by others).
var (
	// ErrUnknownTenant is returned when searching a tenant nothing was
	// ingested for.
	ErrUnknownTenant = errors.New("unknown tenant")
	// ErrEmptyTenant is returned for an empty tenant id.
	ErrEmptyTenant = errors.New("empty tenant id")
	// ErrBadK is returned for k ≤ 0 or k > KMax.
	ErrBadK = errors.New("k out of range 1..1000")
	// ErrEmptyQuery is returned for a query that is empty or only white
	// space.
	ErrEmptyQuery = errors.New("empty query")
	// ErrBadMessage is returned for a message without DiaID or text, or
	// addressed to another tenant.
	ErrBadMessage = errors.New("bad message")
)

// scored is one candidate of a top-k selection.
type scored struct {
	idx   int
	score float64
}

// minHeap keeps the k best candidates with the worst at the root: lower
// score is worse, and at equal scores the later document is worse.
type minHeap []scored

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].idx > h[j].idx
}
func (h minHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topK returns the indexes of the k highest scores for which keep is true,
// best first; ties go to the lower index. NaN scores are never kept.
func topK(scores []float64, k int, keep func(float64) bool) []scored {
	h := make(minHeap, 0, k+1)
	for i, s := range scores {
		if s != s || (keep != nil && !keep(s)) {
			continue
		}
		c := scored{idx: i, score: s}
		if len(h) < k {
			heap.Push(&h, c)
			continue
		}
		if (minHeap{c, h[0]}).Less(1, 0) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	out := make([]scored, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(scored)
	}
	return out
}
