package zbctlcli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/cmd/zbctl/zbctlcli"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/worker"
)

const cliDim = 64

func runIn(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code := zbctlcli.RunContext(context.Background(), args, getenv, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func ok(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	r := run(t, env, args...)
	require.Zero(t, r.code, "%v: %s", args, r.stderr)
	return r.stdout
}

func fails(t *testing.T, env map[string]string, want string, args ...string) result {
	t.Helper()
	r := run(t, env, args...)
	require.Equal(t, 1, r.code, "%v should fail: %s", args, r.stdout)
	require.Contains(t, r.stderr, want, "%v", args)
	return r
}

var totalRE = regexp.MustCompile(`(?m)^total\s+(\d+)$`)

func total(t *testing.T, env map[string]string, tenant string) int {
	t.Helper()
	m := totalRE.FindStringSubmatch(ok(t, env, "stats", "--tenant", tenant))
	require.NotNil(t, m)
	n, _ := strconv.Atoi(m[1])
	return n
}

func seedCLI(t *testing.T, env map[string]string) {
	t.Helper()
	ok(t, env, "store", "--external-id", "c1", "Alice lives in Berlin")
	ok(t, env, "store", "Bob works at Acme with Alice")
	ok(t, env, "store", "--layer", "core", "--label", "name", "My name is Sam")
	ok(t, env, "store", "How to deploy Zeus: step 1 build the image, step 2 push it")
	ok(t, env, "store", "--layer", "episodic", "--occurred-at", "2024-05-07T18:00:00Z", "We celebrated Alice's birthday in Berlin")
}

func TestContextExportImportCLI(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, &zbtest.Opts{EmbeddingDim: cliDim}), "ZB_TENANT": "cli"}
	seedCLI(t, env)

	// Exported before any recall, so no access has grown a stability.
	dir := t.TempDir()
	file := filepath.Join(dir, "cli.jsonl")
	out := ok(t, env, "export", "--out", file)
	require.Contains(t, out, "exported tenant cli to "+file+": 5 memories")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	golden(t, "json/export", scrub(string(b)))
	leftovers, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	require.NoError(t, err)
	require.Empty(t, leftovers)
	// With decay off the scores do not move with the clock (retention 1).
	ok(t, env, "algorithms", "disable", "decay")
	out = ok(t, env, "context", "--budget", "60", "Where does Alice live?")
	require.True(t, strings.HasPrefix(out, "## Core\n- name: My name is Sam\n"), out)
	// The global workspace titles recalled facts; every recalled line says when it happened.
	require.Regexp(t, `## Facts\n- \[\d{4}-\d{2}-\d{2}\] Alice lives in Berlin`, out)
	require.Regexp(t, `\d+ memories, \d+ of 60 tokens`, out)
	var blk coordinator.ContextBlock
	js := ok(t, env, "--json", "context", "--budget", "60", "Where does Alice live?")
	require.NoError(t, json.Unmarshal([]byte(js), &blk))
	require.LessOrEqual(t, blk.Used, 60)
	golden(t, "json/context", scrub(js))
	fails(t, env, "--budget", "context", "--budget", "0", "x")
	fails(t, env, "--session", "context", "--session", "nope", "x")

	r := run(t, env, "export")
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, strings.Count(string(b), "\n"), strings.Count(r.stdout, "\n"), "stdout holds the same JSON Lines")
	require.Contains(t, r.stderr, "to stdout: 5 memories")
	fails(t, env, "tenant nobody does not exist", "export", "--tenant", "nobody")

	// Into another tenant, twice; into another database; from stdin.
	out = ok(t, env, "import", "--tenant", "copy", file)
	require.Contains(t, out, "imported into tenant copy: 5 memories (0 already there)")
	out = ok(t, env, "import", "--tenant", "copy", "--batch", "2", file)
	require.Contains(t, out, "0 memories (5 already there)")
	require.Equal(t, 5, total(t, env, "copy"))
	env2 := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, &zbtest.Opts{EmbeddingDim: cliDim})}
	r = runIn(t, env2, string(b), "import", "--tenant", "cli", "-")
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, 5, total(t, env2, "cli"))
	require.Equal(t, ok(t, env, "--json", "recall", "--tenant", "cli", "-k", "2", "deploy Zeus")[:100],
		ok(t, env2, "--json", "recall", "--tenant", "cli", "-k", "2", "deploy Zeus")[:100], "the copy answers like the original")

	out = ok(t, env, "import", "--tenant", "dry", "--dry-run", file)
	require.Contains(t, out, "is valid: 6 lines, 5 memories")
	require.Equal(t, 0, total(t, env, "dry"))
	bad := filepath.Join(dir, "bad.jsonl")
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[2] = strings.Replace(lines[2], `"layer":"`, `"layer":"x`, 1)
	require.NoError(t, os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o600))
	r = fails(t, env, "line 3: ", "import", "--tenant", "bad", bad)
	require.Contains(t, r.stderr, "nothing imported")
	require.Contains(t, r.stderr, "fix these lines")
	require.Equal(t, 0, total(t, env, "bad"))
	fails(t, env, "cannot open", "import", filepath.Join(dir, "missing.jsonl"))
}

func TestJobsReviewReconHealthCLI(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: cliDim})
	env := map[string]string{"ZB_DATABASE_URL": u, "ZB_TENANT": "ops"}
	seedCLI(t, env)

	r := run(t, env, "jobs", "run", "sleep")
	require.Zero(t, r.code, r.stderr)
	m := regexp.MustCompile(`enqueued sleep for tenant ops as job (\d+)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	require.Contains(t, r.stderr, "no zbworker")
	require.Contains(t, ok(t, env, "jobs", "run", "sleep"), "already queued as job "+m[1])
	fails(t, env, "want decay, review or sleep", "jobs", "run", "nap")
	fails(t, env, "does not exist", "jobs", "run", "decay", "--tenant", "nobody")
	golden(t, "json/jobs_list", scrub(ok(t, env, "--json", "jobs", "list", "--kind", "sleep")))
	out := ok(t, env, "jobs", "list", "--state", "available", "--tenant", "ops")
	require.Regexp(t, `(?m)^`+m[1]+`\s+zb_sleep\s+available\s+ops\s`, out)
	require.Contains(t, ok(t, env, "jobs", "cancel", m[1]), "cancelled job "+m[1]+" (zb_sleep): now cancelled")
	require.Contains(t, ok(t, env, "jobs", "retry", m[1]), "now available")
	fails(t, env, "job 99999 not found", "jobs", "cancel", "99999")
	fails(t, env, "not a positive integer", "jobs", "retry", "x")
	fails(t, env, "unknown job state", "jobs", "list", "--state", "asleep")

	require.Contains(t, ok(t, env, "review", "due"), "no reviews due")
	out = ok(t, env, "review", "grade", "1", "good")
	require.Regexp(t, `graded memory 1 good: new → \w+, next review`, out)
	fails(t, env, "want again, hard, good or easy", "review", "grade", "1", "meh")
	fails(t, env, "not found or not active", "review", "grade", "999", "easy")
	var due struct {
		Due     int   `json:"due"`
		Reviews []any `json:"reviews"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "review", "due")), &due))
	require.Zero(t, due.Due)

	// A reconsolidation event, made by the coordinator as the worker would.
	ctx := context.Background()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	emb, err := embed.New(&embed.Config{Dim: cliDim})
	require.NoError(t, err)
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
	require.NoError(t, err)
	old, err := co.Store(ctx, coordinator.StoreInput{TenantID: "ops", Content: "Tom works at Siemens as an engineer in Munich."})
	require.NoError(t, err)
	_, err = co.Derive(ctx, jobs.DeriveArgs{TenantID: "ops", Pending: true}, nil)
	require.NoError(t, err)
	_, err = co.Recall(ctx, "ops", "Where does Tom work?", nil)
	require.NoError(t, err)
	_, err = co.Store(ctx, coordinator.StoreInput{TenantID: "ops", Content: "Tom works at Siemens as a manager in Munich."})
	require.NoError(t, err)
	_, err = co.Derive(ctx, jobs.DeriveArgs{TenantID: "ops", Pending: true}, nil)
	require.NoError(t, err)
	out = ok(t, env, "reconsolidation", "log", "--memory", strconv.FormatInt(old.ID, 10))
	ev := regexp.MustCompile(`(?m)^(\d+)\s+` + strconv.FormatInt(old.ID, 10) + `\s`).FindStringSubmatch(out)
	require.NotNil(t, ev, out)
	out = ok(t, env, "reconsolidation", "show", ev[1])
	require.Contains(t, out, "before:   Tom works at Siemens as an engineer in Munich.")
	require.Contains(t, out, "'zbctl reconsolidation rollback "+ev[1]+"' restores the snapshot")
	require.Contains(t, ok(t, env, "recon", "rollback", ev[1]), "memory "+strconv.FormatInt(old.ID, 10)+" is restored")
	require.Contains(t, ok(t, env, "reconsolidation", "show", ev[1]), "the memory equals its snapshot")
	fails(t, env, "not found", "reconsolidation", "show", "9999")
	fails(t, env, "nothing changed", "reconsolidation", "rollback", "9999")

	out = ok(t, env, "health")
	for _, s := range []string{
		"spectral (knowledge graph connectivity)", "λ₂ now", "no sleep runs yet", "metacognition (last 30 days): 0 events",
		"knowledge gaps (curiosity): 1 topics", "TOPIC  ", "PROGRESS", "ACTION",
	} {
		require.Contains(t, out, s)
	}
	var h coordinator.HealthReport
	require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "health")), &h))
	require.Equal(t, "ops", h.Tenant)
	require.True(t, h.Gaps.Enabled)
	require.Len(t, h.Gaps.Gaps, 1, "one recall, one topic")
	require.Equal(t, 1, h.Gaps.Gaps[0].Queries)
	require.NotEmpty(t, h.Gaps.Gaps[0].Action)

	var algs struct {
		Algorithms []any `json:"algorithms"`
	}
	js := ok(t, env, "--json", "algorithms", "list")
	require.NoError(t, json.Unmarshal([]byte(js), &algs))
	golden(t, "json/algorithms_list", js)
}

// fakeOllama serves POST /api/embed with the hash embedder's vectors rotated by 5: another
// model whose vectors are not comparable with the hash model's.
func fakeOllama(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := embed.New(&embed.Config{Dim: cliDim})
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		vs, err := h.Embed(r.Context(), req.Input)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := make([][]float64, len(vs))
		for i, v := range vs {
			out[i] = make([]float64, len(v))
			for j, x := range v {
				out[i][(j+5)%len(v)] = float64(x)
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReembedCLI(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: cliDim})
	env := map[string]string{"ZB_DATABASE_URL": u, "ZB_TENANT": "re"}
	seedCLI(t, env)
	srv := fakeOllama(t)
	newEnv := map[string]string{
		"ZB_DATABASE_URL": u, "ZB_TENANT": "re", "ZB_EMBEDDER": "ollama", "ZB_EMBED_MODEL": "nomic",
		"ZB_EMBED_URL": srv.URL,
	}

	require.Contains(t, ok(t, env, "reembed", "--status"), "no active embedding model recorded")
	fails(t, env, "--model NAME is required", "reembed")
	fails(t, env, "the hash provider has the one model hash-v1-64", "reembed", "--model", "nomic")
	badURL := map[string]string{"ZB_DATABASE_URL": u, "ZB_EMBEDDER": "ollama", "ZB_EMBED_URL": srv.URL + "/nowhere"}
	r := fails(t, badURL, "check that the ollama embedder is reachable", "reembed", "--model", "nomic")
	require.Contains(t, r.stderr, "400")
	require.Contains(t, ok(t, env, "reembed", "--status"), "no active embedding model recorded", "a failed start changes nothing")

	out := ok(t, newEnv, "reembed", "--model", "nomic")
	require.Contains(t, out, "active embedding model: ollama/nomic@64 (was -)")
	require.Contains(t, out, "enqueued 1 jobs (0 already queued) to re-embed 5 memories of 1 tenants")
	golden(t, "json/reembed_status", ok(t, env, "--json", "reembed", "--status"))
	r = run(t, env, "reembed", "--status")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "0 of 5 memories re-embedded (0.0%), 5 pending")
	require.Contains(t, r.stderr, "this zbctl embeds queries with hash-v1-64, not the active ollama/nomic@64")

	// Until a worker with the new model ran, recall is lexical.
	byVector := func(env map[string]string) bool {
		t.Helper()
		var rec coordinator.RecallResult
		require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "recall", "-k", "1", "Where does Alice live?")), &rec))
		require.Len(t, rec.Results, 1)
		require.Contains(t, rec.Results[0].Content, "Alice lives in Berlin")
		return rec.Results[0].ByVector
	}
	require.False(t, byVector(newEnv))

	ctx := context.Background()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, MaxConns: 4})
	require.NoError(t, err)
	defer pool.Close()
	emb, err := embed.New(&embed.Config{Provider: "ollama", Model: "nomic", BaseURL: srv.URL, Dim: cliDim})
	require.NoError(t, err)
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
	require.NoError(t, err)
	w, err := worker.New(&worker.Config{
		Pool: pool, Coordinator: co, ID: "w-reembed", DecayInterval: -1, ReviewInterval: -1,
		SleepInterval: -1, SweepInterval: -1, IdleInterval: -1, ProspectiveInterval: -1, VacuumInterval: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	require.NoError(t, w.Start(ctx))
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	require.NoError(t, w.Drain(dctx, 100*time.Millisecond))
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	defer scancel()
	require.NoError(t, w.Stop(sctx))

	out = ok(t, newEnv, "reembed", "--status")
	require.Contains(t, out, "active model ollama/nomic@64: 5 of 5 memories re-embedded (100.0%), 0 pending")
	require.Regexp(t, `jobs:.* completed 1`, out)
	require.True(t, byVector(newEnv), "the new model's vectors are used")
	require.False(t, byVector(env), "a query embedded with the old model is not compared")
	var st coordinator.ReembedStatus
	require.NoError(t, json.Unmarshal([]byte(ok(t, newEnv, "--json", "reembed", "--model", "ollama/nomic@64", "--wait")), &struct {
		Status *coordinator.ReembedStatus `json:"status"`
	}{&st}))
	require.Equal(t, int64(5), st.Done, "starting again finds nothing to do and --wait returns at once")
}
