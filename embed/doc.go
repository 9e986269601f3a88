// Package embed turns texts into vectors for zenbrain's memories.
//
// An [Embedder] has a dimension ([Embedder.Dim]) and a model name
// ([Embedder.Model]) that is stored with every vector, so vectors from
// different models are never compared. [New] chooses the provider from a
// [Config]:
//
//   - "hash" (the default, [Hash]): deterministic, offline, no model download.
//     Hashed stemmed word unigrams and bigrams and character 3–5-grams, with
//     stop words damped, longer words weighted up as a corpus-free stand-in
//     for IDF, and sublinear term frequency (1 + ln tf); signed feature hashing
//     into any dimension, L2-normalized. Model name "hash-v1-768" for
//     dimension 768. About 50,000 short texts per second on one core.
//   - "ollama": POST {BaseURL}/api/embed with {"model", "input"}; for example
//     the model nomic-embed-text (768 dimensions).
//   - "openai": any OpenAI-compatible server, POST {BaseURL}/v1/embeddings
//     with {"model", "input"} and "Authorization: Bearer <APIKey>"; the
//     answer's items are put back in input order by their "index".
//
// # Empty text
//
// Every provider rejects an empty or whitespace-only text with an error
// wrapping [ErrEmptyText] instead of returning a zero vector (whose cosine with
// anything is undefined). Callers validate content before embedding it.
//
// # HTTP providers
//
// Texts are sent in batches of at most [Config.BatchSize] (default 64), up to
// [Config.Concurrency] (default 4) batches at once through a
// github.com/sourcegraph/conc pool bound to the caller's context; the first
// failing batch cancels the others. Each attempt has its own timeout
// ([Config.Timeout], default 30 s). Status 429, 5xx and transport errors are
// retried up to [Config.MaxRetries] (default 4) times with exponential backoff
// and equal jitter, or after exactly the Retry-After the server asked for. Any
// other non-2xx status fails at once with an [*HTTPError] holding the status
// and the start of the body. Responses are checked: malformed JSON, a wrong
// number of vectors, bad indices and NaN or infinite values wrap
// [ErrBadResponse]; a vector whose length differs from [Config.Dim] wraps
// [ErrDimensionMismatch]. Backoff waits on a timer and the context, so
// cancelling the context ends the call at once.
package embed
