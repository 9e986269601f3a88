package embed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// maxResponseBytes bounds the response body read from a provider (64 texts of
// 3072 dimensions in JSON are about 4 MiB).
const maxResponseBytes = 64 << 20

// BodySnippetMax is the largest number of bytes of an error response body
// kept in [HTTPError.Body].
const BodySnippetMax = 512

// HTTPError is returned (wrapped) when a provider answers with a status other
// than 2xx. Statuses 429 and 5xx are retried first; other statuses are not.
type HTTPError struct {
	// Provider is the provider name, "ollama" or "openai".
	Provider string
	// StatusCode is the HTTP status code.
	StatusCode int
	// Body is the start of the response body, at most [BodySnippetMax] bytes.
	Body string
	// RetryAfter is the wait the Retry-After header asked for, or zero.
	RetryAfter time.Duration
}

// Error returns the provider, status and body snippet.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("embed: %s returned HTTP %d: %s", e.Provider, e.StatusCode, e.Body)
}

// Retryable reports whether the status is worth retrying: 429 or 5xx.
func (e *HTTPError) Retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// protocol is the request and response format of one HTTP provider.
type protocol interface {
	// name is the provider name.
	name() string
	// endpoint returns the request URL for the base URL.
	endpoint(base string) string
	// encode returns the JSON request body for a batch.
	encode(texts []string) ([]byte, error)
	// decode parses a 2xx response body into n vectors in request order.
	decode(body []byte, n int) ([][]float64, error)
}

// httpEmbedder is the [Embedder] of the HTTP providers: batching, fan-out,
// retries and response checks around a [protocol].
type httpEmbedder struct {
	proto         protocol
	url           string
	model         string
	dim           int
	apiKey        string
	batchSize     int
	concurrency   int
	timeout       time.Duration
	maxRetries    int
	backoffBase   time.Duration
	backoffMax    time.Duration
	maxRetryAfter time.Duration
	client        *http.Client
	// wait blocks for d or until ctx is done; tests replace it to record
	// waits without spending them.
	wait func(ctx context.Context, d time.Duration) error
	// jitter returns a uniformly random duration in [0, d]; tests may fix it.
	jitter func(d time.Duration) time.Duration
}

// newHTTPEmbedder builds the embedder for a defaulted, validated Config.
func newHTTPEmbedder(c *Config, p protocol) *httpEmbedder {
	retries := c.MaxRetries
	if retries < 0 {
		retries = 0
	}
	return &httpEmbedder{
		proto:         p,
		url:           p.endpoint(c.BaseURL),
		model:         fmt.Sprintf("%s/%s@%d", p.name(), c.Model, c.Dim),
		dim:           c.Dim,
		apiKey:        c.APIKey,
		batchSize:     c.BatchSize,
		concurrency:   c.Concurrency,
		timeout:       c.Timeout,
		maxRetries:    retries,
		backoffBase:   c.BackoffBase,
		backoffMax:    c.BackoffMax,
		maxRetryAfter: c.MaxRetryAfter,
		client:        c.HTTPClient,
		wait:          waitTimer,
		jitter:        uniformJitter,
	}
}

// Dim returns the configured dimension.
func (e *httpEmbedder) Dim() int { return e.dim }

// Model returns "<provider>/<model>@<dim>", e.g. "ollama/nomic-embed-text@768".
func (e *httpEmbedder) Model() string { return e.model }

// Embed splits texts into batches, sends up to Concurrency of them at once,
// and returns the vectors in the order of texts. The first failing batch
// cancels the others and its error is returned.
func (e *httpEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("error embedding texts with %s: %w", e.proto.name(), err)
	}
	if err := checkTexts(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	if len(texts) <= e.batchSize {
		if err := e.embedBatch(ctx, texts, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	p := pool.New().WithMaxGoroutines(e.concurrency).WithContext(ctx).WithCancelOnError().WithFirstError()
	for start := 0; start < len(texts); start += e.batchSize {
		end := min(start+e.batchSize, len(texts))
		p.Go(func(ctx context.Context) error {
			return e.embedBatch(ctx, texts[start:end], out[start:end])
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// embedBatch embeds one batch into dst (len(dst) == len(batch)), retrying
// retryable failures with backoff.
func (e *httpEmbedder) embedBatch(ctx context.Context, batch []string, dst [][]float32) error {
	body, err := e.proto.encode(batch)
	if err != nil {
		return fmt.Errorf("error encoding %s request: %w", e.proto.name(), err)
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("error embedding %d texts with %s: %w", len(batch), e.proto.name(), err)
		}
		vecs, err := e.attempt(ctx, body, len(batch))
		if err == nil {
			copy(dst, vecs)
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("error embedding %d texts with %s: %w", len(batch), e.proto.name(), ctxErr)
		}
		retryAfter, retryable := e.classify(err)
		if !retryable || attempt >= e.maxRetries {
			return fmt.Errorf("error embedding %d texts with %s after %d attempt(s): %w", len(batch), e.proto.name(), attempt+1, err)
		}
		d := e.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > e.maxRetryAfter {
				return fmt.Errorf("error embedding %d texts with %s: Retry-After %s exceeds MaxRetryAfter %s: %w",
					len(batch), e.proto.name(), retryAfter, e.maxRetryAfter, err)
			}
			d = retryAfter
		}
		if werr := e.wait(ctx, d); werr != nil {
			return fmt.Errorf("error embedding %d texts with %s while backing off: %w (last error: %w)",
				len(batch), e.proto.name(), werr, err)
		}
	}
}

// classify reports whether err is worth retrying and the Retry-After it
// carries. Retryable are 429 and 5xx statuses and transport errors (including
// an attempt's own timeout); response-format errors and other statuses are not.
func (e *httpEmbedder) classify(err error) (time.Duration, bool) {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.RetryAfter, he.Retryable()
	}
	if errors.Is(err, ErrBadResponse) || errors.Is(err, ErrDimensionMismatch) {
		return 0, false
	}
	var te *transportError
	return 0, errors.As(err, &te)
}

// transportError marks a failure to send the request or read the response.
type transportError struct{ err error }

// Error returns the underlying error's text.
func (t *transportError) Error() string { return t.err.Error() }

// Unwrap returns the underlying error.
func (t *transportError) Unwrap() error { return t.err }

// backoff returns the jittered wait before retry number attempt+1:
// d = min(BackoffMax, BackoffBase·2^attempt), then d/2 + U[0, d/2].
func (e *httpEmbedder) backoff(attempt int) time.Duration {
	d := e.backoffMax
	if attempt < 62 {
		if m := e.backoffBase << attempt; m > 0 && m>>attempt == e.backoffBase && m < d {
			d = m
		}
	}
	half := d / 2
	return half + e.jitter(d-half)
}

// uniformJitter returns a uniformly random duration in [0, d].
func uniformJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

// waitTimer blocks for d or until ctx is done, whichever comes first, and
// returns ctx's error in the second case.
func waitTimer(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt sends one request with the per-attempt timeout and returns the
// checked vectors.
func (e *httpEmbedder) attempt(ctx context.Context, body []byte, n int) ([][]float32, error) {
	actx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("error building %s request: %w", e.proto.name(), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.apiKey)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, &transportError{err: fmt.Errorf("error sending %s request: %w", e.proto.name(), err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, BodySnippetMax))
		// Drain a little more so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &HTTPError{
			Provider:   e.proto.name(),
			StatusCode: resp.StatusCode,
			Body:       redactKey(strings.ToValidUTF8(string(snippet), "\uFFFD"), e.apiKey),
			RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
		}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, &transportError{err: fmt.Errorf("error reading %s response: %w", e.proto.name(), err)}
	}
	if len(data) > maxResponseBytes {
		return nil, fmt.Errorf("%s response is larger than %d bytes: %w", e.proto.name(), maxResponseBytes, ErrBadResponse)
	}
	raw, err := e.proto.decode(data, n)
	if err != nil {
		return nil, err
	}
	return e.check(raw, n)
}

// check verifies the count, dimension and finiteness of decoded vectors and
// converts them to float32.
func (e *httpEmbedder) check(raw [][]float64, n int) ([][]float32, error) {
	if len(raw) != n {
		return nil, fmt.Errorf("%s returned %d embeddings for %d texts: %w", e.proto.name(), len(raw), n, ErrBadResponse)
	}
	backing := make([]float32, n*e.dim)
	out := make([][]float32, n)
	for i, r := range raw {
		if len(r) != e.dim {
			return nil, fmt.Errorf("%s returned embedding %d of dimension %d, configured Dim is %d: %w",
				e.proto.name(), i, len(r), e.dim, ErrDimensionMismatch)
		}
		v := backing[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		for j, x := range r {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return nil, fmt.Errorf("%s returned a non-finite value at embedding %d, component %d: %w",
					e.proto.name(), i, j, ErrBadResponse)
			}
			v[j] = float32(x)
		}
		out[i] = v
	}
	return out, nil
}

// parseRetryAfter reads a Retry-After header given in seconds or as an HTTP
// date (relative to now). Missing or unparsable values give zero.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(math.MaxInt64/int64(time.Second)) {
			return time.Duration(math.MaxInt64)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// redactKey removes the API key from text a provider sent back (some echo it in error bodies),
// so it never reaches an error, a log line or a River job's error record.
func redactKey(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[REDACTED]")
}
