package security

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/worker"
)

// repoFile reads a file of the repository (tests run in integration/security).
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	require.NoError(t, err)
	return string(b)
}

// TestSecurityDefinerCatalog: the SECURITY DEFINER functions of schema zb are exactly the five
// docs/security.md lists, each with search_path pinned, and the document names every one.
func TestSecurityDefinerCatalog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rows, err := e.super.Query(ctxT(t), `SELECT p.proname::text, coalesce(array_to_string(p.proconfig, ','), '')
		FROM pg_proc p WHERE p.pronamespace = 'zb'::regnamespace AND p.prosecdef ORDER BY 1`)
	require.NoError(t, err)
	type fn struct{ Name, Config string }
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fn])
	require.NoError(t, err)
	var names []string
	for _, f := range fns {
		names = append(names, f.Name)
		require.Contains(t, f.Config, "search_path=pg_catalog, pg_temp", "%s pins search_path", f.Name)
	}
	want := []string{"erase", "erase_memories", "lexical_topk_definer", "recall_lexical", "recall_vector"}
	require.Equal(t, want, names)
	doc := repoFile(t, "docs/security.md")
	for _, n := range want {
		require.Contains(t, doc, "`zb."+n+"`", "docs/security.md names the SECURITY DEFINER function zb.%s", n)
	}
}

// TestAuditActionsListed: every audit action the Go code writes is in zb.audit_action, so no
// code path meets the trigger's "unknown action" (tests run as the superuser, whom the trigger
// trusts, would not notice).
func TestAuditActionsListed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rows, err := e.super.Query(ctxT(t), `SELECT action FROM zb.audit_action ORDER BY 1`)
	require.NoError(t, err)
	listed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	action := regexp.MustCompile(`"((?:memory|session|context|tenant|approval|consent|governance|retention|algorithm|hyperagent|intention)\.[a-z_]+)"`)
	found := map[string]bool{}
	for _, dir := range []string{"coordinator", "worker", "mcpserver"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if filepath.Ext(f) != ".go" || regexp.MustCompile(`_test\.go$`).MatchString(f) {
				continue
			}
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			for _, m := range action.FindAllStringSubmatch(string(b), -1) {
				found[m[1]] = true
			}
		}
	}
	require.Greater(t, len(found), 25, "the scan finds the coordinator's actions")
	var missing []string
	for a := range found {
		if !slices.Contains(listed, a) {
			missing = append(missing, a)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "actions written by Go code but not in zb.audit_action (add them in a migration)")
}

// TestRiverAsWorkerRole: River's client runs as a zb_worker login with the narrowed grants on
// River's tables (jobs, leaders and queues written; the rest only read): a memory the
// application stores is derived by that worker; and the worker login cannot rewrite River's
// migration history.
func TestRiverAsWorkerRole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	appPool, _ := e.login(t, "app")
	app := e.coordinator(t, appPool)
	res, err := app.Store(ctx, coordinator.StoreInput{TenantID: "river-t", Content: "Ana bought a red bicycle in Porto."})
	require.NoError(t, err)

	wrkPool, _ := e.login(t, "worker")
	co := e.coordinator(t, wrkPool)
	w, err := worker.New(&worker.Config{
		Pool: wrkPool, Coordinator: co, ID: "security-worker", Concurrency: 2,
		DecayInterval: -1, ReviewInterval: -1, SleepInterval: -1, SweepInterval: time.Hour, IdleInterval: -1,
		ProspectiveInterval: -1, VacuumInterval: -1, Heartbeat: time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, w.Start(wctx))
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer scancel()
		require.NoError(t, w.Stop(sctx))
	}()
	deadline := time.Now().Add(60 * time.Second)
	for queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE id = $1 AND derived_at IS NOT NULL", res.ID) == 0 {
		require.True(t, time.Now().Before(deadline), "the worker login derives the memory")
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	for _, q := range []string{
		"DELETE FROM river.river_migration",
		"INSERT INTO river.river_migration (line, version) VALUES ('main', 999)",
		"TRUNCATE river.river_job",
	} {
		_, err := wrkPool.Exec(ctx, q)
		requireState(t, err, "42501", q)
	}
}
