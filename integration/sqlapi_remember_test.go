package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sourcegraph/conc/pool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// zb.remember stores into a session (working and short-term memory from SQL), reopens an ended
// session for a late turn, and treats a core label as an upsert — also under concurrent writers
// of one label — as the Go API does.
func TestRememberSessionsAndCoreLabels(t *testing.T) {
	t.Parallel()
	db := zbtest.Pool(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	count := func(q string, args ...any) int {
		var n int
		require.NoError(t, db.QueryRow(ctx, q, args...).Scan(&n), q)
		return n
	}

	// Sessions.
	sess := uuid.New()
	var id int64
	for _, layer := range []string{"working", "short_term"} {
		require.NoError(t, db.QueryRow(ctx, `SELECT zb.remember('sql-s', 'Ana is packing for Lisbon.', $1::zb.memory_layer, p_session_id => $2)`,
			layer, sess).Scan(&id))
		require.Positive(t, id)
	}
	require.Equal(t, 2, count(`SELECT count(*) FROM zb.memory WHERE tenant_id = 'sql-s' AND session_id = $1`, sess))
	_, err := db.Exec(ctx, `UPDATE zb.session SET ended_at = now(), consolidated_at = now() WHERE id = $1`, sess)
	require.NoError(t, err)
	require.NoError(t, db.QueryRow(ctx, `SELECT zb.remember('sql-s', 'Ana forgot her passport!', 'short_term', p_session_id => $1)`, sess).Scan(&id))
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.session WHERE id = $1 AND ended_at IS NULL`, sess), "a late turn reopens the session")

	// Core labels: eight writers of one label at once, each with its own value.
	const writers = 8
	p := pool.New().WithErrors().WithContext(ctx)
	for i := range writers {
		p.Go(func(ctx context.Context) error {
			var got int64
			return db.QueryRow(ctx, `SELECT zb.remember('sql-core', $1, 'core', p_core_label => 'name')`,
				fmt.Sprintf("The user's name is Ana %d.", i)).Scan(&got)
		})
	}
	require.NoError(t, p.Wait(), "every writer of the label succeeds")
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.memory WHERE tenant_id = 'sql-core' AND core_label = 'name'`))
	require.Equal(t, writers-1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'sql-core' AND action = 'memory.update'`),
		"one create and seven updates, each audited with its old and new value")
	var coreID int64
	var content string
	require.NoError(t, db.QueryRow(ctx, `SELECT id, content FROM zb.memory WHERE tenant_id = 'sql-core' AND core_label = 'name'`).Scan(&coreID, &content))
	// The same value again changes nothing; a new one updates the same memory, to be derived again.
	require.NoError(t, db.QueryRow(ctx, `SELECT zb.remember('sql-core', $1, 'core', p_core_label => 'name')`, content).Scan(&id))
	require.Equal(t, coreID, id)
	require.Equal(t, writers-1, count(`SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'sql-core' AND action = 'memory.update'`))
	require.NoError(t, db.QueryRow(ctx, `SELECT zb.remember('sql-core', 'The user''s name is Ana Lima.', 'core', p_core_label => 'name')`).Scan(&id))
	require.Equal(t, coreID, id)
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.memory WHERE id = $1 AND content = 'The user''s name is Ana Lima.' AND derived_at IS NULL`, coreID))

	// Behind an approval, SQL refuses the overwrite (the Go API queues it).
	_, err = db.Exec(ctx, `UPDATE zb.tenant SET settings = '{"approval_required": ["core_overwrite"]}' WHERE id = 'sql-core'`)
	require.NoError(t, err)
	_, err = db.Exec(ctx, `SELECT zb.remember('sql-core', 'The user''s name is Bo.', 'core', p_core_label => 'name')`)
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "error: %v", err)
	require.Equal(t, "ZB002", pgErr.Code)
	require.Equal(t, 1, count(`SELECT count(*) FROM zb.memory WHERE id = $1 AND content = 'The user''s name is Ana Lima.'`, coreID))
}
