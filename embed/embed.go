package embed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Embedder turns texts into fixed-dimension vectors. Implementations are safe
// for concurrent use.
type Embedder interface {
	// Embed returns one vector of length Dim per text, in the order of texts.
	// An empty or whitespace-only text fails the whole call with an error
	// wrapping ErrEmptyText. An empty texts slice returns an empty result and
	// no error.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim returns the length of every vector Embed returns.
	Dim() int
	// Model returns the descriptive model name recorded with every stored
	// vector, for example "hash-v1-768" or "ollama/nomic-embed-text@768".
	// Vectors with different Model values must not be compared.
	Model() string
}

// Provider names.
const (
	// ProviderHash selects the offline [Hash] embedder. It is the default.
	ProviderHash = "hash"
	// ProviderOllama selects the Ollama embedder (POST {BaseURL}/api/embed).
	ProviderOllama = "ollama"
	// ProviderOpenAI selects the OpenAI-compatible embedder (POST
	// {BaseURL}/v1/embeddings).
	ProviderOpenAI = "openai"
)

// Defaults and limits of [Config].
const (
	// DimDefault is the default vector dimension, matching the default
	// embedding column of the schema and nomic-embed-text.
	DimDefault = 768
	// DimMax is the largest accepted dimension (the maximum of pgvector's
	// vector type).
	DimMax = 16000
	// BatchSizeDefault is the default number of texts per HTTP request.
	BatchSizeDefault = 64
	// BatchSizeMax is the largest accepted batch size (the OpenAI limit of
	// inputs per request).
	BatchSizeMax = 2048
	// ConcurrencyDefault is the default number of batches in flight at once.
	ConcurrencyDefault = 4
	// ConcurrencyMax is the largest accepted concurrency.
	ConcurrencyMax = 64
	// TimeoutDefault is the default timeout of one HTTP attempt.
	TimeoutDefault = 30 * time.Second
	// MaxRetriesDefault is the default number of retries after the first
	// attempt of a batch.
	MaxRetriesDefault = 4
	// MaxRetriesLimit is the largest accepted MaxRetries.
	MaxRetriesLimit = 20
	// BackoffBaseDefault is the default wait before the first retry.
	BackoffBaseDefault = 500 * time.Millisecond
	// BackoffMaxDefault is the default cap on one backoff wait.
	BackoffMaxDefault = 30 * time.Second
	// MaxRetryAfterDefault is the default longest Retry-After that is waited
	// for.
	MaxRetryAfterDefault = 60 * time.Second
	// OllamaBaseURLDefault is the default base URL of the ollama provider.
	OllamaBaseURLDefault = "http://localhost:11434"
	// OllamaModelDefault is the default model of the ollama provider.
	OllamaModelDefault = "nomic-embed-text"
	// OpenAIBaseURLDefault is the default base URL of the openai provider.
	OpenAIBaseURLDefault = "https://api.openai.com"
	// OpenAIModelDefault is the default model of the openai provider.
	OpenAIModelDefault = "text-embedding-3-small"
)

// ErrEmptyText is returned (wrapped, naming the text's index) when a text to
// embed is empty or only whitespace. No provider gets such a text: it has no
// meaning to embed, and a zero vector would have no cosine.
var ErrEmptyText = errors.New("embed: text is empty")

// ErrBadResponse is wrapped by every error about a provider response that
// cannot be used: malformed JSON, a wrong number of embeddings, missing or
// duplicate indices, NaN or infinite values.
var ErrBadResponse = errors.New("embed: bad response from provider")

// ErrDimensionMismatch is wrapped when a provider returns vectors whose length
// differs from the configured Dim.
var ErrDimensionMismatch = errors.New("embed: embedding dimension mismatch")

// Config chooses and configures an [Embedder] for [New]. The zero value (or a
// nil *Config) gives the default [Hash] embedder of dimension [DimDefault].
// Fields that do not apply to the chosen provider must be left zero where
// noted.
type Config struct {
	// Provider is "hash", "ollama" or "openai". Defaults to "hash".
	Provider string
	// Dim is the vector dimension. For the HTTP providers every returned
	// vector is checked against it. Defaults to [DimDefault]; at most [DimMax].
	Dim int
	// Model is the provider's model name. Defaults to [OllamaModelDefault]
	// or [OpenAIModelDefault]; must be empty for the hash provider.
	Model string
	// BaseURL is the provider's base URL (scheme and host, optionally a path
	// prefix). Defaults to [OllamaBaseURLDefault] or [OpenAIBaseURLDefault].
	// For openai a base ending in "/v1" is accepted and not doubled. Must be
	// empty for the hash provider.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>" when not empty. It
	// is required for openai when BaseURL is the default OpenAI endpoint.
	APIKey string
	// SendDimensions makes the openai provider send Dim as the request's
	// "dimensions" field (text-embedding-3 models shorten their output to
	// it). Defaults to false.
	SendDimensions bool
	// BatchSize is the largest number of texts per HTTP request. Defaults to
	// [BatchSizeDefault]; at most [BatchSizeMax].
	BatchSize int
	// Concurrency is the largest number of batches in flight at once.
	// Defaults to [ConcurrencyDefault]; at most [ConcurrencyMax].
	Concurrency int
	// Timeout bounds each HTTP attempt (not the whole call, which ctx
	// bounds). Defaults to [TimeoutDefault].
	Timeout time.Duration
	// MaxRetries is the number of retries of a batch after its first attempt,
	// on 429, 5xx and transport errors. Defaults to [MaxRetriesDefault]; -1
	// disables retries; at most [MaxRetriesLimit].
	MaxRetries int
	// BackoffBase is the wait before the first retry; retry n waits
	// BackoffBase·2ⁿ, capped at BackoffMax, with equal jitter (half fixed,
	// half uniformly random). Defaults to [BackoffBaseDefault].
	BackoffBase time.Duration
	// BackoffMax caps one backoff wait. Defaults to [BackoffMaxDefault].
	BackoffMax time.Duration
	// MaxRetryAfter is the longest Retry-After (seconds or HTTP date) that is
	// honoured: a 429 or 503 carrying Retry-After waits exactly that long
	// before retrying, and one asking for more than MaxRetryAfter fails the
	// call at once. Defaults to [MaxRetryAfterDefault].
	MaxRetryAfter time.Duration
	// HTTPClient sends the requests. Defaults to a client using
	// http.DefaultTransport with no client-level timeout (Timeout applies per
	// attempt).
	HTTPClient *http.Client
}

// WithDefaults returns a copy of c with every zero field set to its default
// for the chosen provider. A nil c is treated as the zero Config.
func (c *Config) WithDefaults() *Config {
	var out Config
	if c != nil {
		out = *c
	}
	out.Provider = cmp.Or(strings.ToLower(strings.TrimSpace(out.Provider)), ProviderHash)
	out.Dim = cmp.Or(out.Dim, DimDefault)
	if out.Provider == ProviderHash {
		return &out
	}
	switch out.Provider {
	case ProviderOllama:
		out.Model = cmp.Or(out.Model, OllamaModelDefault)
		out.BaseURL = cmp.Or(out.BaseURL, OllamaBaseURLDefault)
	case ProviderOpenAI:
		out.Model = cmp.Or(out.Model, OpenAIModelDefault)
		out.BaseURL = cmp.Or(out.BaseURL, OpenAIBaseURLDefault)
	}
	out.BatchSize = cmp.Or(out.BatchSize, BatchSizeDefault)
	out.Concurrency = cmp.Or(out.Concurrency, ConcurrencyDefault)
	out.Timeout = cmp.Or(out.Timeout, TimeoutDefault)
	out.MaxRetries = cmp.Or(out.MaxRetries, MaxRetriesDefault)
	out.BackoffBase = cmp.Or(out.BackoffBase, BackoffBaseDefault)
	out.BackoffMax = cmp.Or(out.BackoffMax, BackoffMaxDefault)
	out.MaxRetryAfter = cmp.Or(out.MaxRetryAfter, MaxRetryAfterDefault)
	if out.HTTPClient == nil {
		out.HTTPClient = &http.Client{}
	}
	return &out
}

// validate checks a Config that WithDefaults has filled in. Its errors name
// the field.
func (c *Config) validate() error {
	if c.Dim < 1 || c.Dim > DimMax {
		return fmt.Errorf("embed: Dim must be between 1 and %d, got %d", DimMax, c.Dim)
	}
	switch c.Provider {
	case ProviderHash:
		if c.Model != "" {
			return fmt.Errorf("embed: Model must be empty for the hash provider, got %q", c.Model)
		}
		if c.BaseURL != "" {
			return fmt.Errorf("embed: BaseURL must be empty for the hash provider, got %q", c.BaseURL)
		}
		return nil
	case ProviderOllama, ProviderOpenAI:
	default:
		return fmt.Errorf("embed: Provider must be %q, %q or %q, got %q", ProviderHash, ProviderOllama, ProviderOpenAI, c.Provider)
	}
	if strings.TrimSpace(c.Model) != c.Model || strings.ContainsAny(c.Model, "\x00\n\r") {
		return fmt.Errorf("embed: Model must not contain surrounding whitespace or control characters, got %q", c.Model)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return fmt.Errorf("embed: BaseURL is not a valid URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("embed: BaseURL must be an http or https URL with a host, got %q", c.BaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("embed: BaseURL must not have a query or fragment, got %q", c.BaseURL)
	}
	if c.Provider == ProviderOpenAI && c.APIKey == "" && u.Host == "api.openai.com" {
		return errors.New("embed: APIKey is required for the openai provider at api.openai.com")
	}
	if strings.ContainsAny(c.APIKey, "\r\n") {
		return errors.New("embed: APIKey must not contain line breaks")
	}
	switch {
	case c.BatchSize < 1 || c.BatchSize > BatchSizeMax:
		return fmt.Errorf("embed: BatchSize must be between 1 and %d, got %d", BatchSizeMax, c.BatchSize)
	case c.Concurrency < 1 || c.Concurrency > ConcurrencyMax:
		return fmt.Errorf("embed: Concurrency must be between 1 and %d, got %d", ConcurrencyMax, c.Concurrency)
	case c.Timeout < 0:
		return fmt.Errorf("embed: Timeout must not be negative, got %s", c.Timeout)
	case c.MaxRetries < -1 || c.MaxRetries > MaxRetriesLimit:
		return fmt.Errorf("embed: MaxRetries must be -1 (no retries) or between 1 and %d, got %d", MaxRetriesLimit, c.MaxRetries)
	case c.BackoffBase < 0:
		return fmt.Errorf("embed: BackoffBase must not be negative, got %s", c.BackoffBase)
	case c.BackoffMax < c.BackoffBase:
		return fmt.Errorf("embed: BackoffMax (%s) must not be less than BackoffBase (%s)", c.BackoffMax, c.BackoffBase)
	case c.MaxRetryAfter < 0:
		return fmt.Errorf("embed: MaxRetryAfter must not be negative, got %s", c.MaxRetryAfter)
	}
	return nil
}

// New returns the [Embedder] that cfg chooses, after applying
// [Config.WithDefaults] and validating the result. A nil cfg gives the default
// [Hash] embedder of dimension [DimDefault]. Errors name the offending field.
func New(cfg *Config) (Embedder, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	switch c.Provider {
	case ProviderOllama:
		return newHTTPEmbedder(c, ollamaProtocol{model: c.Model}), nil
	case ProviderOpenAI:
		return newHTTPEmbedder(c, openaiProtocol{model: c.Model, dim: c.Dim, sendDims: c.SendDimensions}), nil
	default:
		h, err := NewHash(c.Dim)
		if err != nil {
			return nil, err
		}
		return h, nil
	}
}
