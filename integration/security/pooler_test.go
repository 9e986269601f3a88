package security

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// TestAttackPoolerSessionBinding: behind PgBouncer in transaction mode, clients share server
// connections. Client 1 sets zb.tenant_id at session level (SET outside a transaction); client 2
// never binds a tenant, and its statements run on the same server connection. It used to read the
// victim's memories through the leaked setting. The setting still reaches it (PgBouncer does not
// reset it), but it does not count: every read of a tenant table is refused with 42501, and a
// client that binds its tenant with zb.bind_tenant in its transaction sees that tenant only.
func TestAttackPoolerSessionBinding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const victim, other = "pool-victim", "pool-other"
	victimIDs := e.storeFor(t, victim, "Victim's secret: the safe combination is 31-7-22.", "Victim meets the lawyer on Friday.")
	e.storeFor(t, other, "Other tenant's grocery list.")

	_, name := e.login(t, "app")
	const pw = "secret-test-password" // e.login's password
	bouncerURL := zbtest.PgBouncer(t, e.url, map[string]string{name: pw})
	u, err := url.Parse(bouncerURL)
	require.NoError(t, err)
	u.User = url.UserPassword(name, pw)

	connect := func(t *testing.T) *pgx.Conn {
		t.Helper()
		cfg, err := pgx.ParseConfig(u.String())
		require.NoError(t, err)
		// PgBouncer 1.18 in transaction mode has no named prepared statements (pgx's default
		// statement cache fails with 42P05 on the shared server connection).
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		conn, err := pgx.ConnectConfig(ctx, cfg)
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		return conn
	}
	client1, client2 := connect(t), connect(t)

	// The attack: client 1 sets the tenant for the session, outside any transaction.
	_, err = client1.Exec(ctx, "SET zb.tenant_id = '"+victim+"'")
	require.NoError(t, err)

	// Not vacuous: both clients run on the one server connection, and the setting reaches
	// client 2.
	pid1 := queryInt(t, client1, "SELECT pg_backend_pid()")
	pid2 := queryInt(t, client2, "SELECT pg_backend_pid()")
	require.Equal(t, pid1, pid2, "the two clients must share the server connection")
	var leaked string
	require.NoError(t, client2.QueryRow(ctx, "SELECT current_setting('zb.tenant_id', true)").Scan(&leaked))
	require.Equal(t, victim, leaked, "client 1's session setting reaches client 2 through the pooler")

	// Client 2 never bound a tenant: it reads nothing, by error, in both statement shapes.
	requireUnboundRefused := func(t *testing.T, sql string) {
		t.Helper()
		rows, err := client2.Query(ctx, sql)
		if err == nil {
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			err = rows.Err()
			require.Zero(t, n, "%s returned rows to a client that never bound a tenant", sql)
		}
		requireState(t, err, "42501", sql)
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr)
		require.Contains(t, pgErr.Message, "zb.bind_tenant")
	}
	requireUnboundRefused(t, "SELECT count(*) FROM zb.memory")
	requireUnboundRefused(t, "SELECT content FROM zb.memory")
	require.Equal(t, pid1, queryInt(t, client2, "SELECT pg_backend_pid()"), "still the shared server connection")

	// Client 2 binds its own tenant in its transaction: it sees its own memory, none of the victim's.
	inTx := func(t *testing.T, conn *pgx.Conn, tenant string, fn func(tx pgx.Tx)) {
		t.Helper()
		tx, err := conn.Begin(ctx)
		require.NoError(t, err)
		defer func() { _ = tx.Rollback(ctx) }()
		var bound *string
		require.NoError(t, tx.QueryRow(ctx, "SELECT zb.bind_tenant($1)", tenant).Scan(&bound))
		require.NotNil(t, bound)
		require.Equal(t, tenant, *bound)
		fn(tx)
		require.NoError(t, tx.Commit(ctx))
	}
	inTx(t, client2, other, func(tx pgx.Tx) {
		require.Equal(t, pid1, queryInt(t, tx, "SELECT pg_backend_pid()"))
		require.Zero(t, queryInt(t, tx, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1", victim))
		require.Equal(t, int64(1), queryInt(t, tx, "SELECT count(*) FROM zb.memory"))
	})

	// Client 1 undoes its session setting; client 2, unbound, now reads nothing without an error.
	_, err = client1.Exec(ctx, "RESET zb.tenant_id")
	require.NoError(t, err)
	require.Zero(t, queryInt(t, client2, "SELECT count(*) FROM zb.memory"))

	// Bound to the victim in its transaction (the app role may choose any tenant: it is trusted
	// for that), client 2 sees exactly the victim's memories.
	inTx(t, client2, victim, func(tx pgx.Tx) {
		rows, err := tx.Query(ctx, "SELECT id FROM zb.memory ORDER BY id")
		require.NoError(t, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(t, err)
		require.Equal(t, victimIDs, ids)
	})
}
