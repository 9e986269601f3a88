package embed

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ollamaProtocol speaks Ollama's batch embedding API: POST /api/embed with
// {"model": m, "input": [texts]}, answered by {"embeddings": [[...], ...]} in
// input order.
type ollamaProtocol struct {
	model string
}

// ollamaRequest is the body of POST /api/embed.
type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// ollamaResponse is the part of the /api/embed answer that is used.
type ollamaResponse struct {
	Embeddings [][]float64 `json:"embeddings"`
}

// name returns "ollama".
func (ollamaProtocol) name() string { return ProviderOllama }

// endpoint returns {base}/api/embed.
func (ollamaProtocol) endpoint(base string) string {
	return strings.TrimRight(base, "/") + "/api/embed"
}

// encode returns the request body.
func (p ollamaProtocol) encode(texts []string) ([]byte, error) {
	return json.Marshal(ollamaRequest{Model: p.model, Input: texts})
}

// decode returns the embeddings in input order.
func (ollamaProtocol) decode(body []byte, _ int) ([][]float64, error) {
	var r ollamaResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("error decoding ollama response: %w: %w", ErrBadResponse, err)
	}
	if r.Embeddings == nil {
		return nil, fmt.Errorf("ollama response has no \"embeddings\" field: %w", ErrBadResponse)
	}
	return r.Embeddings, nil
}

// openaiProtocol speaks the OpenAI embeddings API: POST /v1/embeddings with
// {"model", "input": [...], "encoding_format": "float"} and optionally
// "dimensions", answered by {"data": [{"index": i, "embedding": [...]}]},
// whose items may come in any order.
type openaiProtocol struct {
	model    string
	dim      int
	sendDims bool
}

// openaiRequest is the body of POST /v1/embeddings.
type openaiRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

// openaiResponse is the part of the /v1/embeddings answer that is used.
type openaiResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// name returns "openai".
func (openaiProtocol) name() string { return ProviderOpenAI }

// endpoint returns {base}/v1/embeddings, or {base}/embeddings when base
// already ends in /v1.
func (openaiProtocol) endpoint(base string) string {
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, "/v1") {
		return base + "/embeddings"
	}
	return base + "/v1/embeddings"
}

// encode returns the request body.
func (p openaiProtocol) encode(texts []string) ([]byte, error) {
	r := openaiRequest{Model: p.model, Input: texts, EncodingFormat: "float"}
	if p.sendDims {
		r.Dimensions = p.dim
	}
	return json.Marshal(r)
}

// decode returns the embeddings ordered by their "index" field, which must
// cover 0..n-1 exactly once.
func (openaiProtocol) decode(body []byte, n int) ([][]float64, error) {
	var r openaiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("error decoding openai response: %w: %w", ErrBadResponse, err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("openai returned %d embeddings for %d texts: %w", len(r.Data), n, ErrBadResponse)
	}
	out := make([][]float64, n)
	for k, d := range r.Data {
		if d.Index == nil {
			return nil, fmt.Errorf("openai response item %d has no index: %w", k, ErrBadResponse)
		}
		i := *d.Index
		if i < 0 || i >= n {
			return nil, fmt.Errorf("openai response item %d has index %d outside [0, %d): %w", k, i, n, ErrBadResponse)
		}
		if out[i] != nil {
			return nil, fmt.Errorf("openai response has index %d twice: %w", i, ErrBadResponse)
		}
		if d.Embedding == nil {
			return nil, fmt.Errorf("openai response item %d has no embedding: %w", k, ErrBadResponse)
		}
		out[i] = d.Embedding
	}
	return out, nil
}
