package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeProvider is a local HTTP server standing in for Ollama or an
// OpenAI-compatible server. Its handler gets the 1-based request number and
// the decoded input texts.
type fakeProvider struct {
	srv      *httptest.Server
	requests atomic.Int64

	mu      sync.Mutex
	inputs  [][]string
	headers []http.Header
	paths   []string
	bodies  []map[string]any
}

type fakeHandler func(w http.ResponseWriter, r *http.Request, n int, input []string)

func newFakeProvider(t *testing.T, h fakeHandler) *fakeProvider {
	t.Helper()
	f := &fakeProvider{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(f.requests.Add(1))
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var body map[string]any
		var req struct {
			Input []string `json:"input"`
		}
		if json.Unmarshal(raw, &body) != nil || json.Unmarshal(raw, &req) != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.inputs = append(f.inputs, req.Input)
		f.headers = append(f.headers, r.Header.Clone())
		f.paths = append(f.paths, r.URL.Path)
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		h(w, r, n, req.Input)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// vectorFor returns a deterministic vector of length dim for a text of the
// form "t<i>": component 0 is i, the others are 1/dim.
func vectorFor(text string, dim int) []float64 {
	v := make([]float64, dim)
	for j := range v {
		v[j] = 1 / float64(dim)
	}
	if i, err := strconv.Atoi(strings.TrimPrefix(text, "t")); err == nil {
		v[0] = float64(i)
	}
	return v
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// ollamaOK answers like Ollama with vectors of length dim.
func ollamaOK(dim int) fakeHandler {
	return func(w http.ResponseWriter, _ *http.Request, _ int, input []string) {
		embs := make([][]float64, len(input))
		for i, text := range input {
			embs[i] = vectorFor(text, dim)
		}
		writeJSON(w, map[string]any{"model": "m", "embeddings": embs})
	}
}

// openaiOK answers like OpenAI with vectors of length dim, items in reverse
// order.
func openaiOK(dim int) fakeHandler {
	return func(w http.ResponseWriter, _ *http.Request, _ int, input []string) {
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		data := make([]item, 0, len(input))
		for i := len(input) - 1; i >= 0; i-- {
			data = append(data, item{Object: "embedding", Index: i, Embedding: vectorFor(input[i], dim)})
		}
		writeJSON(w, map[string]any{"object": "list", "data": data, "model": "m"})
	}
}

// testWaits records the backoff waits an embedder asked for.
type testWaits struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (w *testWaits) get() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.waits...)
}

// newTestHTTP builds an HTTP embedder for cfg pointed at f, with tiny backoff
// defaults and a wait function that records the wait and returns at once
// (unless the context is already done).
func newTestHTTP(t *testing.T, f *fakeProvider, cfg Config) (*httpEmbedder, *testWaits) {
	t.Helper()
	cfg.BaseURL = f.srv.URL
	cfg.Dim = max(cfg.Dim, 4)
	if cfg.BackoffBase == 0 {
		cfg.BackoffBase = time.Millisecond
	}
	if cfg.BackoffMax == 0 {
		cfg.BackoffMax = 8 * time.Millisecond
	}
	e, err := New(&cfg)
	require.NoError(t, err)
	he, ok := e.(*httpEmbedder)
	require.True(t, ok)
	rec := &testWaits{}
	he.wait = func(ctx context.Context, d time.Duration) error {
		rec.mu.Lock()
		rec.waits = append(rec.waits, d)
		rec.mu.Unlock()
		return ctx.Err()
	}
	return he, rec
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

func TestOllama(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	t.Run("Success", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, ollamaOK(4))
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama"})
		require.Equal(t, "ollama/nomic-embed-text@4", e.Model())
		require.Equal(t, 4, e.Dim())
		vs, err := e.Embed(ctx, []string{"t3", "t1", "hello"})
		require.NoError(t, err)
		require.Equal(t, [][]float32{{3, .25, .25, .25}, {1, .25, .25, .25}, {.25, .25, .25, .25}}, vs)
		require.Equal(t, []string{"/api/embed"}, f.paths)
		require.Equal(t, "nomic-embed-text", f.bodies[0]["model"])
		require.Equal(t, [][]string{{"t3", "t1", "hello"}}, f.inputs)
		require.Equal(t, "application/json", f.headers[0].Get("Content-Type"))
		require.Empty(t, f.headers[0].Get("Authorization"))
	})

	t.Run("EmptyInputSendsNothing", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, ollamaOK(4))
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama"})
		vs, err := e.Embed(ctx, []string{})
		require.NoError(t, err)
		require.Empty(t, vs)
		_, err = e.Embed(ctx, []string{"t1", " \n"})
		require.ErrorIs(t, err, ErrEmptyText)
		require.ErrorContains(t, err, "text 1")
		require.Zero(t, f.requests.Load())
	})

	t.Run("BatchingKeepsOrder", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, ollamaOK(4))
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama", Concurrency: 3})
		in := texts(150)
		vs, err := e.Embed(ctx, in)
		require.NoError(t, err)
		require.Len(t, vs, 150)
		for i, v := range vs {
			require.Equal(t, float32(i), v[0], "vector %d out of order", i)
		}
		require.EqualValues(t, 3, f.requests.Load())
		sizes := map[int]int{}
		for _, inp := range f.inputs {
			sizes[len(inp)]++
		}
		require.Equal(t, map[int]int{64: 2, 22: 1}, sizes)
	})

	t.Run("WrongDimension", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, ollamaOK(3))
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama", Dim: 4})
		_, err := e.Embed(ctx, []string{"a"})
		require.ErrorIs(t, err, ErrDimensionMismatch)
		require.ErrorContains(t, err, "dimension 3, configured Dim is 4")
		require.EqualValues(t, 1, f.requests.Load())
		require.Empty(t, waits.get())
	})

	t.Run("WrongCount", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, n int, input []string) {
			ollamaOK(4)(w, r, n, input[:1])
		})
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama"})
		_, err := e.Embed(ctx, []string{"a", "b"})
		require.ErrorIs(t, err, ErrBadResponse)
		require.ErrorContains(t, err, "1 embeddings for 2 texts")
		require.EqualValues(t, 1, f.requests.Load())
	})

	t.Run("MalformedJSON", func(t *testing.T) {
		t.Parallel()
		for _, body := range []string{`{"embeddings": [[1,2,3,`, `not json`, `{}`, `{"embeddings": [[1,2,3,NaN]]}`, `{"embeddings": [[1,2,3,1e39]]}`} {
			f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
				_, _ = io.WriteString(w, body)
			})
			e, waits := newTestHTTP(t, f, Config{Provider: "ollama"})
			_, err := e.Embed(ctx, []string{"a"})
			require.ErrorIs(t, err, ErrBadResponse, "body %s", body)
			require.EqualValues(t, 1, f.requests.Load(), "a bad response is not retried")
			require.Empty(t, waits.get())
		}
	})

	t.Run("APIKeySent", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, ollamaOK(4))
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama", APIKey: "secret"})
		_, err := e.Embed(ctx, []string{"a"})
		require.NoError(t, err)
		require.Equal(t, "Bearer secret", f.headers[0].Get("Authorization"))
	})
}

func TestOpenAI(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	t.Run("ReordersByIndex", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, openaiOK(4))
		e, _ := newTestHTTP(t, f, Config{Provider: "openai", APIKey: "sk-test", Model: "text-embedding-3-large"})
		require.Equal(t, "openai/text-embedding-3-large@4", e.Model())
		vs, err := e.Embed(ctx, []string{"t0", "t1", "t2", "t7"})
		require.NoError(t, err)
		got := make([]float32, len(vs))
		for i, v := range vs {
			got[i] = v[0]
		}
		require.Equal(t, []float32{0, 1, 2, 7}, got)
		require.Equal(t, []string{"/v1/embeddings"}, f.paths)
		require.Equal(t, "Bearer sk-test", f.headers[0].Get("Authorization"))
		require.Equal(t, "text-embedding-3-large", f.bodies[0]["model"])
		require.Equal(t, "float", f.bodies[0]["encoding_format"])
		require.NotContains(t, f.bodies[0], "dimensions")
	})

	t.Run("SendDimensions", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, openaiOK(8))
		e, _ := newTestHTTP(t, f, Config{Provider: "openai", Dim: 8, SendDimensions: true})
		_, err := e.Embed(ctx, []string{"a"})
		require.NoError(t, err)
		require.InDelta(t, 8.0, f.bodies[0]["dimensions"], 0)
	})

	t.Run("BadIndices", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name, body, msg string
		}{
			{"Duplicate", `{"data":[{"index":0,"embedding":[1,1,1,1]},{"index":0,"embedding":[1,1,1,1]}]}`, "index 0 twice"},
			{"OutOfRange", `{"data":[{"index":0,"embedding":[1,1,1,1]},{"index":2,"embedding":[1,1,1,1]}]}`, "index 2 outside"},
			{"Negative", `{"data":[{"index":-1,"embedding":[1,1,1,1]},{"index":0,"embedding":[1,1,1,1]}]}`, "index -1 outside"},
			{"Missing", `{"data":[{"embedding":[1,1,1,1]},{"index":0,"embedding":[1,1,1,1]}]}`, "has no index"},
			{"NoEmbedding", `{"data":[{"index":1},{"index":0,"embedding":[1,1,1,1]}]}`, "has no embedding"},
			{"Count", `{"data":[{"index":0,"embedding":[1,1,1,1]}]}`, "1 embeddings for 2 texts"},
			{"NaN", `{"data":[{"index":0,"embedding":[1,1,1,NaN]},{"index":1,"embedding":[1,1,1,1]}]}`, "decoding"},
			{"Overflow", `{"data":[{"index":0,"embedding":[1,1,1,-1e300]},{"index":1,"embedding":[1,1,1,1]}]}`, "non-finite value at embedding 0, component 3"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
					_, _ = io.WriteString(w, tt.body)
				})
				e, _ := newTestHTTP(t, f, Config{Provider: "openai"})
				_, err := e.Embed(ctx, []string{"a", "b"})
				require.ErrorIs(t, err, ErrBadResponse)
				require.ErrorContains(t, err, tt.msg)
				require.EqualValues(t, 1, f.requests.Load())
			})
		}
	})

	t.Run("WrongDimension", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, openaiOK(5))
		e, _ := newTestHTTP(t, f, Config{Provider: "openai", Dim: 4})
		_, err := e.Embed(ctx, []string{"a"})
		require.ErrorIs(t, err, ErrDimensionMismatch)
	})
}

func TestHTTPRetries(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	t.Run("429ThenSuccessHonoursRetryAfter", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, n int, input []string) {
			if n == 1 {
				w.Header().Set("Retry-After", "2")
				http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
				return
			}
			ollamaOK(4)(w, r, n, input)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama"})
		vs, err := e.Embed(ctx, []string{"t5"})
		require.NoError(t, err)
		require.Equal(t, float32(5), vs[0][0])
		require.EqualValues(t, 2, f.requests.Load())
		require.Equal(t, []time.Duration{2 * time.Second}, waits.get())
	})

	t.Run("503ThenSuccessWithJitteredBackoff", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, n int, input []string) {
			if n <= 3 {
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
				return
			}
			openaiOK(4)(w, r, n, input)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "openai", BackoffBase: 10 * time.Millisecond, BackoffMax: 30 * time.Millisecond})
		_, err := e.Embed(ctx, []string{"a"})
		require.NoError(t, err)
		require.EqualValues(t, 4, f.requests.Load())
		got := waits.get()
		require.Len(t, got, 3)
		// Base·2ⁿ capped at BackoffMax, then between half and all of it.
		for i, capped := range []time.Duration{10, 20, 30} {
			capped *= time.Millisecond
			require.GreaterOrEqual(t, got[i], capped/2, "wait %d", i)
			require.LessOrEqual(t, got[i], capped, "wait %d", i)
		}
	})

	t.Run("500sExhaustRetries", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
			http.Error(w, "boom", http.StatusInternalServerError)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama", MaxRetries: 2})
		_, err := e.Embed(ctx, []string{"a"})
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusInternalServerError, he.StatusCode)
		require.Equal(t, "ollama", he.Provider)
		require.Equal(t, "boom\n", he.Body)
		require.ErrorContains(t, err, "after 3 attempt(s)")
		require.EqualValues(t, 3, f.requests.Load())
		require.Len(t, waits.get(), 2)
	})

	t.Run("NoRetriesWhenDisabled", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
			http.Error(w, "boom", http.StatusBadGateway)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama", MaxRetries: -1})
		_, err := e.Embed(ctx, []string{"a"})
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusBadGateway, he.StatusCode)
		require.EqualValues(t, 1, f.requests.Load())
		require.Empty(t, waits.get())
	})

	t.Run("400NotRetriedBodySnippet", func(t *testing.T) {
		t.Parallel()
		long := `{"error":"model not found` + strings.Repeat("x", 2000) + `"}`
		f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, long)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "openai"})
		_, err := e.Embed(ctx, []string{"a"})
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusBadRequest, he.StatusCode)
		require.False(t, he.Retryable())
		require.Len(t, he.Body, BodySnippetMax)
		require.True(t, strings.HasPrefix(he.Body, `{"error":"model not found`))
		require.ErrorContains(t, err, "openai returned HTTP 400")
		require.EqualValues(t, 1, f.requests.Load())
		require.Empty(t, waits.get())
	})

	t.Run("RetryAfterTooLong", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama"})
		_, err := e.Embed(ctx, []string{"a"})
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, time.Hour, he.RetryAfter)
		require.ErrorContains(t, err, "exceeds MaxRetryAfter")
		require.EqualValues(t, 1, f.requests.Load())
		require.Empty(t, waits.get())
	})

	t.Run("TransportErrorRetried", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, n int, input []string) {
			if n == 1 {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					_ = conn.Close()
				}
				return
			}
			ollamaOK(4)(w, r, n, input)
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama"})
		vs, err := e.Embed(ctx, []string{"t9"})
		require.NoError(t, err)
		require.Equal(t, float32(9), vs[0][0])
		require.EqualValues(t, 2, f.requests.Load())
		require.Len(t, waits.get(), 1)
	})

	t.Run("AttemptTimeout", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(_ http.ResponseWriter, r *http.Request, _ int, _ []string) {
			<-r.Context().Done() // never answers; the client's attempt timeout ends it
		})
		e, waits := newTestHTTP(t, f, Config{Provider: "ollama", Timeout: 20 * time.Millisecond, MaxRetries: 1})
		_, err := e.Embed(ctx, []string{"a"})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.ErrorContains(t, err, "after 2 attempt(s)")
		// The client made two attempts (the error says so); the server counts the second only
		// if it arrived within its 20 ms — on a loaded machine it may not have.
		require.Contains(t, []int64{1, 2}, f.requests.Load())
		require.Len(t, waits.get(), 1)
	})

	t.Run("CancelDuringBackoff", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ []string) {
			http.Error(w, "boom", http.StatusServiceUnavailable)
		})
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama", BackoffBase: time.Hour, BackoffMax: time.Hour})
		backingOff := make(chan time.Duration, 1)
		e.wait = func(ctx context.Context, d time.Duration) error {
			backingOff <- d
			return waitTimer(ctx, d) // the real timer and select
		}
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := e.Embed(cctx, []string{"a"})
			done <- err
		}()
		select {
		case d := <-backingOff:
			require.GreaterOrEqual(t, d, 30*time.Minute)
		case <-time.After(10 * time.Second):
			require.FailNow(t, "embedder never started backing off")
		}
		cancel()
		select {
		case err := <-done:
			require.ErrorIs(t, err, context.Canceled)
			var he *HTTPError
			require.ErrorAs(t, err, &he, "the last provider error is kept")
		case <-time.After(10 * time.Second):
			require.FailNow(t, "cancel did not end the backoff")
		}
		require.EqualValues(t, 1, f.requests.Load())
	})

	t.Run("CanceledBeforeStart", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, ollamaOK(4))
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama"})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := e.Embed(cctx, []string{"a"})
		require.ErrorIs(t, err, context.Canceled)
		require.Zero(t, f.requests.Load())
	})
}

func TestHTTPFanOut(t *testing.T) {
	t.Parallel()

	ctx := context.Background()

	t.Run("ConcurrencyBound", func(t *testing.T) {
		t.Parallel()
		var inflight, peak atomic.Int64
		pair := make(chan struct{})
		var once sync.Once
		f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, n int, input []string) {
			cur := inflight.Add(1)
			defer inflight.Add(-1)
			for {
				p := peak.Load()
				if cur <= p || peak.CompareAndSwap(p, cur) {
					break
				}
			}
			if cur >= 2 {
				once.Do(func() { close(pair) })
			}
			// Hold the first requests until two overlap, so the bound is
			// actually exercised.
			select {
			case <-pair:
			case <-time.After(5 * time.Second):
			}
			ollamaOK(4)(w, r, n, input)
		})
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama", BatchSize: 5, Concurrency: 2})
		vs, err := e.Embed(ctx, texts(50))
		require.NoError(t, err)
		require.Len(t, vs, 50)
		require.EqualValues(t, 10, f.requests.Load())
		require.EqualValues(t, 2, peak.Load())
	})

	t.Run("FirstErrorWins", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, n int, input []string) {
			if input[0] == "t10" {
				http.Error(w, "bad batch", http.StatusUnprocessableEntity)
				return
			}
			ollamaOK(4)(w, r, n, input)
		})
		e, _ := newTestHTTP(t, f, Config{Provider: "ollama", BatchSize: 10, Concurrency: 1})
		vs, err := e.Embed(ctx, texts(40))
		require.Nil(t, vs)
		var he *HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusUnprocessableEntity, he.StatusCode)
		require.False(t, errors.Is(err, context.Canceled))
		// With one batch at a time, the failure of the second cancels the rest.
		require.EqualValues(t, 2, f.requests.Load())
	})
}

func TestBackoff(t *testing.T) {
	t.Parallel()

	e := &httpEmbedder{
		backoffBase: 100 * time.Millisecond,
		backoffMax:  5 * time.Second,
		jitter:      func(d time.Duration) time.Duration { return d },
	}
	tests := []struct {
		attempt int
		want    time.Duration
	}{
		{0, 100 * time.Millisecond},
		{1, 200 * time.Millisecond},
		{3, 800 * time.Millisecond},
		{6, 5 * time.Second},
		{40, 5 * time.Second},
		{63, 5 * time.Second},
		{1000, 5 * time.Second},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, e.backoff(tt.attempt), "attempt %d", tt.attempt)
	}
	e.jitter = func(time.Duration) time.Duration { return 0 }
	require.Equal(t, 50*time.Millisecond, e.backoff(0))
	for range 100 {
		d := uniformJitter(10)
		require.True(t, d >= 0 && d <= 10)
	}
	require.Zero(t, uniformJitter(0))
	require.Zero(t, uniformJitter(-5))
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()

	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-3", 0},
		{"7", 7 * time.Second},
		{" 12 ", 12 * time.Second},
		{"99999999999999999", time.Duration(1<<63 - 1)},
		{"soon", 0},
		{"Fri, 01 May 2026 12:00:30 GMT", 30 * time.Second},
		{"Fri, 01 May 2026 11:00:00 GMT", 0},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, parseRetryAfter(tt.in, now), "Retry-After %q", tt.in)
	}
}

func TestWaitTimer(t *testing.T) {
	t.Parallel()

	require.NoError(t, waitTimer(context.Background(), 0))
	require.NoError(t, waitTimer(context.Background(), time.Microsecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, waitTimer(ctx, time.Hour), context.Canceled)
	require.ErrorIs(t, waitTimer(ctx, 0), context.Canceled)
}
