package coordinator_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// Recall's candidate functions never JIT-compile (0025), whatever the session's settings: with
// JIT forced for every statement (jit_above_cost 0) and auto_explain logging the plans of the
// statements inside the functions, none of recall's statements carries a JIT section, while a
// plain statement of the same session does (the control: JIT is available and auto_explain
// reports it). The lexical half is called both ways (hash grouping and merge) and the vector
// half through its HNSW scan (a tenant above the 1 000-memory exact threshold); then the three
// parts a split recall calls on their own (0026).
func TestRecallCandidatesNoJIT(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	const ten = "nojit"
	items := make([]coordinator.StoreInput, 0, 1100)
	for i := range 1100 {
		items = append(items, coordinator.StoreInput{
			TenantID: ten, Layer: []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic}[i%2],
			Content: fmt.Sprintf("%s repaired the %s %s in %s", hotName(i), hotWord(i/3), hotWord(i/7+2), hotPlace(i/5)),
		})
	}
	_, err := b.co.StoreBatch(ctx, items)
	require.NoError(t, err)

	var mu sync.Mutex
	var logs []string
	cc := b.cfg.Pool.Config().ConnConfig.Copy()
	cc.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, n.Message)
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	require.NoError(t, err)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "LOAD 'auto_explain'"); err != nil {
		t.Skipf("auto_explain is not available to the test role: %v", err)
	}
	for _, q := range []string{
		"SET auto_explain.log_min_duration = 0", "SET auto_explain.log_nested_statements = on",
		"SET jit = on", "SET jit_above_cost = 0", "SET jit_inline_above_cost = -1", "SET jit_optimize_above_cost = -1",
		"SET client_min_messages = log",
	} {
		_, err := conn.Exec(ctx, q)
		require.NoError(t, err, q)
	}
	// The session's own statements (the set_config and the outer SELECT) are compiled: only the
	// statements run inside recall's functions count.
	own := []string{"Query Text: SELECT set_config('zb.lexical_merge_min_docs'", "Query Text: SELECT count(*) FROM zb.recall_candidates("}
	jitted := func() (n int) {
		mu.Lock()
		defer mu.Unlock()
	logs:
		for _, l := range logs {
			if !strings.Contains(l, "JIT:") {
				continue
			}
			for _, o := range own {
				if strings.Contains(l, o) {
					continue logs
				}
			}
			n++
			t.Logf("compiled: %.400s", l)
		}
		logs = nil
		return n
	}

	_, err = conn.Exec(ctx, "SELECT sum(g) FROM generate_series(1, 1000) g")
	require.NoError(t, err)
	if jitted() == 0 {
		t.Skip("this server does not JIT-compile (no llvmjit): nothing to check")
	}

	vec := "[" + strings.TrimSuffix(strings.Repeat("0.1,", testDim), ",") + "]"
	for _, minDocs := range []string{"1000000000", "0"} {
		_, err := conn.Exec(ctx, "SELECT set_config('zb.lexical_merge_min_docs', $1, false)", minDocs)
		require.NoError(t, err)
		var n int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM zb.recall_candidates($1, $2::vector, '{ada,lyon,rusti}',
			enum_range(NULL::zb.memory_layer), 8, now(), NULL, NULL, NULL, NULL, false, NULL)`, ten, vec).Scan(&n))
		require.Positive(t, n)
		mu.Lock()
		nested := len(logs)
		mu.Unlock()
		require.Greater(t, nested, 5, "auto_explain logged the statements inside the functions")
		require.Zero(t, jitted(), "min docs %s: a statement of recall's candidate functions was JIT-compiled", minDocs)
	}
	// The parts the coordinator calls on their own for a split recall (0026), each with its own
	// setting (here in one statement, whose own plan is compiled and does not count).
	// DISCARD PLANS: the parts' statements ran above inside recall_candidates_model, whose own
	// setting was then in force, and their cached plans would be reused as they are.
	own = append(own, "Query Text: SELECT count(*) FROM zb.recall_lexical_half(")
	_, err = conn.Exec(ctx, "DISCARD PLANS")
	require.NoError(t, err)
	var n int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM zb.recall_lexical_half($1, '{ada,lyon,rusti}',
		enum_range(NULL::zb.memory_layer), 8, now(), NULL, NULL, NULL, NULL, false) h
		CROSS JOIN LATERAL zb.recall_candidates_join($1, $2::vector, h.terms, h.idf, h.sidf, enum_range(NULL::zb.memory_layer),
			now(), NULL, NULL, NULL, NULL, false, NULL,
			zb.recall_vector_half($1, $2::vector, enum_range(NULL::zb.memory_layer), 8, now(), NULL, NULL, NULL, NULL, false, NULL),
			h.ids, h.n, h.avgdl, h.total, h.sn, true) j`, ten, vec).Scan(&n))
	require.Positive(t, n)
	require.Zero(t, jitted(), "a statement of the split parts was JIT-compiled")
}
