package security

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/jobs"
)

// TestSecretsStayOut: with an embedding provider that rejects the API key and echoes it in its
// error body, neither the key nor the database password appears in any error the API returns
// (what the worker logs and River records as a job's error) or in any column of the database;
// River job arguments hold ids and flags only.
func TestSecretsStayOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const key = "sk-test-Kq81ZpXW4v"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error": {"message": "Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
	}))
	defer srv.Close()
	emb, err := embed.New(&embed.Config{Provider: embed.ProviderOpenAI, BaseURL: srv.URL, APIKey: key, Dim: testDim, Model: "m", MaxRetries: -1})
	require.NoError(t, err)
	u, err := url.Parse(e.url)
	require.NoError(t, err)
	password, _ := u.User.Password()
	require.NotEmpty(t, password)
	secrets := []string{key, password}
	noSecret := func(what string, s string) {
		t.Helper()
		for _, sec := range secrets {
			require.NotContains(t, s, sec, "%s leaks a secret", what)
		}
	}

	inline, err := coordinator.New(&coordinator.Config{Pool: e.super, Embedder: emb, Clock: e.clock})
	require.NoError(t, err)
	_, err = inline.Store(ctx, coordinator.StoreInput{TenantID: "s", Content: "Stored with a rejected key."})
	require.Error(t, err)
	require.Contains(t, err.Error(), "[REDACTED]", "the provider's echo is redacted")
	noSecret("the store error", err.Error())

	deferred, err := coordinator.New(&coordinator.Config{Pool: e.super, Embedder: emb, Clock: e.clock, DeferEmbedding: true})
	require.NoError(t, err)
	r, err := deferred.Store(ctx, coordinator.StoreInput{TenantID: "s", Content: "Embedded later by the worker."})
	require.NoError(t, err)
	_, err = deferred.Derive(ctx, jobs.DeriveArgs{TenantID: "s", MemoryIDs: []int64{r.ID}, NeedsEmbedding: true}, nil)
	require.Error(t, err)
	noSecret("the derive error (a River job's error record)", err.Error())
	_, err = deferred.Recall(ctx, "s", "what is embedded later?", nil)
	if err != nil {
		noSecret("the recall error", err.Error())
	}

	for _, sec := range secrets {
		require.Empty(t, scanMarker(t, e.super, sec), "a secret reached the database")
	}
	// Job arguments: ids, flags and names only (a batch's pending derivation, a sleep).
	_, err = deferred.StoreBatch(ctx, []coordinator.StoreInput{{TenantID: "s", Content: "Loaded in a batch."}})
	require.NoError(t, err)
	_, err = deferred.EnqueueLifecycle(ctx, coordinator.TaskSleep, []string{"s"})
	require.NoError(t, err)
	allowed := []string{
		"tenant_id", "memory_ids", "pending", "needs_embedding", "recheck_supersede", "session_id", "limit",
		"trigger", "seed", "task", "model", "batch", "after_id",
	}
	rows, err := e.super.Query(ctx, "SELECT args FROM river.river_job")
	require.NoError(t, err)
	n := 0
	for rows.Next() {
		var args map[string]json.RawMessage
		require.NoError(t, rows.Scan(&args))
		for k := range args {
			require.True(t, slices.Contains(allowed, k), "job argument %q is not an id, flag or name", k)
		}
		n++
	}
	require.NoError(t, rows.Err())
	require.Positive(t, n)
}
