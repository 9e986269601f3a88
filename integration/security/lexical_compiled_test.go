package security

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

// The compiled lexical scorer (zb_lexical, 0032) reads the postings without row-level security,
// so only the owner of schema zb may execute it: a zb_app login calling zb.lexical_topk directly
// is refused (42501), while its recall for its bound tenant runs it inside recall's SECURITY
// DEFINER functions (counted by track_functions) and returns what the superuser's recall with
// the SQL scorer returns.
func TestCompiledLexicalAsApp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	zbtest.RequireZbLexical(t, e.super)
	const tenant = "lex-app"
	_, err := e.co.StoreBatch(ctx, pItems(tenant, 0, 1100))
	require.NoError(t, err)
	_, err = e.super.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET track_functions = ''all''', current_database()); END $$`)
	require.NoError(t, err)

	app, _ := e.login(t, "app", tenant)
	_, err = app.Exec(ctx, `SELECT zb.lexical_topk($1, '{greta}', 10, 1, 10, '{semantic}'::zb.memory_layer[], 5, now(), NULL, NULL, NULL, NULL)`, tenant)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "42501", pgErr.Code, pgErr.Message)

	// The lexical half for the bound tenant, through the definer function recall uses, in one
	// transaction: this backend's own function counts show the compiled scorer ran.
	tx, err := app.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SELECT zb.bind_tenant($1)`, tenant)
	require.NoError(t, err)
	var tracking string
	require.NoError(t, tx.QueryRow(ctx, `SELECT current_setting('track_functions')`).Scan(&tracking))
	require.Equal(t, "all", tracking)
	before := zbtest.FunctionCalls(t, tx, "zb", "lexical_topk")
	var ids []int64
	require.NoError(t, tx.QueryRow(ctx, `SELECT ids FROM zb.recall_lexical($1, '{greta,lyon}', 1100, 1, 6,
		'{semantic,episodic,procedural}', 5, now(), NULL, NULL, NULL, NULL, false)`, tenant).Scan(&ids))
	require.NotEmpty(t, ids)
	require.EqualValues(t, 1, zbtest.FunctionCalls(t, tx, "zb", "lexical_topk")-before, "the bound tenant's lexical half ran compiled")
	require.NoError(t, tx.Rollback(ctx))

	// Recall as the application role equals the superuser's recall with the SQL scorer.
	appCo, err := coordinator.New(&coordinator.Config{Pool: app, Embedder: e.emb, Clock: e.clock, RecallSplitMinDocs: -1})
	require.NoError(t, err)
	ref := e.coordinator(t, zbtest.PoolWithParams(t, e.super, map[string]string{"zb.lexical_scorer": "sql"}))
	ro := &coordinator.RecallOpts{ReadOnly: true}
	for _, q := range []string{"what did Greta repair in Lyon?", "who painted the blue kettle"} {
		got, err := appCo.Recall(ctx, tenant, q, ro)
		require.NoError(t, err, q)
		want, err := ref.Recall(ctx, tenant, q, ro)
		require.NoError(t, err, q)
		require.NotEmpty(t, want.Results, q)
		require.Equal(t, want.Results, got.Results, q)
	}
}
