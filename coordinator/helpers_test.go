package coordinator_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

const testDim = 64

// fakeEmbedder is a deterministic bag-of-stems embedder: each index term adds 1 to a hashed
// bucket; the vector is L2-normalized. A text without terms embeds to zeros.
type fakeEmbedder struct {
	dim int
	nan bool // return NaN values
}

func (f fakeEmbedder) Dim() int      { return f.dim }
func (f fakeEmbedder) Model() string { return "fake-bag" }
func (f fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, f.dim)
		for _, term := range textproc.Terms(t, textproc.DetectLang(t)) {
			h := fnv.New32a()
			_, _ = h.Write([]byte(term))
			v[h.Sum32()%uint32(f.dim)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		if f.nan {
			v[0] = float32(math.NaN())
		}
		out[i] = v
	}
	return out, nil
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var t0 = time.Date(2024, 5, 8, 12, 0, 0, 0, time.UTC)

type testBundle struct {
	co    *coordinator.Coordinator
	clock *fakeClock
	cfg   *coordinator.Config
}

func setup(t *testing.T, mod func(*coordinator.Config)) *testBundle {
	t.Helper()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: testDim})
	clk := &fakeClock{t: t0}
	cfg := &coordinator.Config{Pool: pool, Embedder: fakeEmbedder{dim: testDim}, Clock: clk}
	if mod != nil {
		mod(cfg)
	}
	co, err := coordinator.New(cfg)
	require.NoError(t, err)
	return &testBundle{co: co, clock: clk, cfg: cfg}
}

// storeAll stores items with StoreBatch, 500 a call.
func (b *testBundle) storeAll(t *testing.T, ctx context.Context, items []coordinator.StoreInput) {
	t.Helper()
	for len(items) > 0 {
		chunk := items[:min(500, len(items))]
		items = items[len(chunk):]
		_, err := b.co.StoreBatch(ctx, chunk)
		require.NoError(t, err)
	}
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ids(rs []coordinator.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// factWords are the vocabulary of factText.
var factWords = []string{
	"harbour", "lantern", "orchard", "violin", "glacier", "saddle", "pepper", "compass", "meadow",
	"anchor", "thimble", "quarry", "falcon", "marble", "juniper", "ribbon", "cobalt", "walnut", "ember", "tundra",
}

// factText is generated fact i: four words of factWords, so that many facts share words and
// some repeat whole.
func factText(i int) string {
	w := factWords
	return fmt.Sprintf("the %s near the %s keeps a %s and a %s", w[i%20], w[(i/20)%20], w[(i*7+3)%20], w[(i*13+5)%20])
}
