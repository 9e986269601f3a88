package embed

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewDefaults(t *testing.T) {
	t.Parallel()

	t.Run("NilIsHash768", func(t *testing.T) {
		t.Parallel()
		e, err := New(nil)
		require.NoError(t, err)
		require.IsType(t, &Hash{}, e)
		require.Equal(t, DimDefault, e.Dim())
		require.Equal(t, "hash-v1-768", e.Model())
	})

	t.Run("HashWithDim", func(t *testing.T) {
		t.Parallel()
		e, err := New(&Config{Provider: " Hash ", Dim: 384})
		require.NoError(t, err)
		require.Equal(t, "hash-v1-384", e.Model())
	})

	t.Run("Ollama", func(t *testing.T) {
		t.Parallel()
		c := (&Config{Provider: "ollama"}).WithDefaults()
		require.Equal(t, OllamaModelDefault, c.Model)
		require.Equal(t, OllamaBaseURLDefault, c.BaseURL)
		require.Equal(t, BatchSizeDefault, c.BatchSize)
		require.Equal(t, ConcurrencyDefault, c.Concurrency)
		require.Equal(t, TimeoutDefault, c.Timeout)
		require.Equal(t, MaxRetriesDefault, c.MaxRetries)
		require.Equal(t, BackoffBaseDefault, c.BackoffBase)
		require.Equal(t, BackoffMaxDefault, c.BackoffMax)
		require.Equal(t, MaxRetryAfterDefault, c.MaxRetryAfter)
		require.NotNil(t, c.HTTPClient)

		e, err := New(&Config{Provider: "ollama"})
		require.NoError(t, err)
		require.Equal(t, "ollama/nomic-embed-text@768", e.Model())
		require.Equal(t, "http://localhost:11434/api/embed", e.(*httpEmbedder).url)
	})

	t.Run("OpenAI", func(t *testing.T) {
		t.Parallel()
		e, err := New(&Config{Provider: "openai", APIKey: "k", Dim: 1536})
		require.NoError(t, err)
		require.Equal(t, "openai/text-embedding-3-small@1536", e.Model())
		require.Equal(t, "https://api.openai.com/v1/embeddings", e.(*httpEmbedder).url)

		e, err = New(&Config{Provider: "openai", BaseURL: "http://localhost:8080/v1/", Model: "bge-m3", Dim: 1024})
		require.NoError(t, err)
		require.Equal(t, "http://localhost:8080/v1/embeddings", e.(*httpEmbedder).url)
		require.Equal(t, "openai/bge-m3@1024", e.Model())
	})

	t.Run("NoRetries", func(t *testing.T) {
		t.Parallel()
		e, err := New(&Config{Provider: "ollama", MaxRetries: -1})
		require.NoError(t, err)
		require.Equal(t, 0, e.(*httpEmbedder).maxRetries)
	})

	t.Run("WithDefaultsDoesNotModify", func(t *testing.T) {
		t.Parallel()
		c := &Config{Provider: "ollama"}
		_ = c.WithDefaults()
		require.Equal(t, &Config{Provider: "ollama"}, c)
	})
}

func TestNewInvalid(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"UnknownProvider", Config{Provider: "cohere"}, "Provider"},
		{"NegativeDim", Config{Dim: -1}, "Dim"},
		{"HugeDim", Config{Dim: DimMax + 1}, "Dim"},
		{"HashWithModel", Config{Model: "nomic-embed-text"}, "Model"},
		{"HashWithBaseURL", Config{BaseURL: "http://x"}, "BaseURL"},
		{"ModelWhitespace", Config{Provider: "ollama", Model: " m"}, "Model"},
		{"ModelNewline", Config{Provider: "ollama", Model: "m\n"}, "Model"},
		{"BaseURLScheme", Config{Provider: "ollama", BaseURL: "ftp://host"}, "BaseURL"},
		{"BaseURLNoHost", Config{Provider: "ollama", BaseURL: "http://"}, "BaseURL"},
		{"BaseURLUnparsable", Config{Provider: "ollama", BaseURL: "http://a b:%%"}, "BaseURL"},
		{"BaseURLQuery", Config{Provider: "ollama", BaseURL: "http://host/?a=1"}, "BaseURL"},
		{"OpenAIKeyMissing", Config{Provider: "openai"}, "APIKey"},
		{"APIKeyNewline", Config{Provider: "openai", APIKey: "a\nb"}, "APIKey"},
		{"NegativeBatch", Config{Provider: "ollama", BatchSize: -1}, "BatchSize"},
		{"HugeBatch", Config{Provider: "ollama", BatchSize: BatchSizeMax + 1}, "BatchSize"},
		{"NegativeConcurrency", Config{Provider: "ollama", Concurrency: -2}, "Concurrency"},
		{"HugeConcurrency", Config{Provider: "ollama", Concurrency: ConcurrencyMax + 1}, "Concurrency"},
		{"NegativeTimeout", Config{Provider: "ollama", Timeout: -time.Second}, "Timeout"},
		{"RetriesBelowMinusOne", Config{Provider: "ollama", MaxRetries: -2}, "MaxRetries"},
		{"HugeRetries", Config{Provider: "ollama", MaxRetries: MaxRetriesLimit + 1}, "MaxRetries"},
		{"NegativeBackoff", Config{Provider: "ollama", BackoffBase: -time.Millisecond}, "BackoffBase"},
		{"BackoffMaxBelowBase", Config{Provider: "ollama", BackoffBase: time.Second, BackoffMax: time.Millisecond}, "BackoffMax"},
		{"NegativeRetryAfter", Config{Provider: "ollama", MaxRetryAfter: -time.Second}, "MaxRetryAfter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := New(&tt.cfg)
			require.ErrorContains(t, err, tt.field)
			require.Nil(t, e)
		})
	}
}

func TestNewKeepsHTTPClient(t *testing.T) {
	t.Parallel()

	client := &http.Client{}
	e, err := New(&Config{Provider: "ollama", HTTPClient: client})
	require.NoError(t, err)
	require.Same(t, client, e.(*httpEmbedder).client)
}
