package coordinator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/zbtest"
)

// quoteLiteral's literals read back as the original string whatever standard_conforming_strings
// is: quotes, backslashes, both, and non-ASCII text.
func TestQuoteLiteral(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, zbtest.DB(t, nil))
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, scs := range []string{"on", "off"} {
		_, err := conn.Exec(ctx, "SET standard_conforming_strings = "+scs)
		require.NoError(t, err)
		for _, s := range []string{"plain", "o'brien", `back\slash`, `it's \'both\'`, `\\`, "'", "Zürich–東京", ""} {
			// The simple protocol, as BEGIN runs (pgx refuses its own argument interpolation
			// when standard_conforming_strings is off; a literal in the text is what it sends).
			res, err := conn.PgConn().Exec(ctx, "SELECT "+quoteLiteral(s)).ReadAll()
			require.NoError(t, err, "%q", s)
			require.Len(t, res, 1)
			require.NoError(t, res[0].Err)
			require.Equal(t, s, string(res[0].Rows[0][0]), "standard_conforming_strings %s", scs)
		}
	}
}

// boundBegin: one round trip begins the transaction with its options and binds it to the tenant.
func TestBoundBegin(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, zbtest.DB(t, nil))
	require.NoError(t, err)
	defer conn.Close(ctx)
	// The tenant travels as a literal: a quote reaches zb.bind_tenant intact (which refuses it:
	// tenant ids have no quotes).
	opts := boundBegin(pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, "t'1")
	require.Equal(t, "BEGIN ISOLATION LEVEL repeatable read read only; SELECT zb.bind_tenant('t''1')", opts.BeginQuery)
	err = pgx.BeginTxFunc(ctx, conn, opts, func(pgx.Tx) error { return nil })
	require.ErrorContains(t, err, `invalid tenant id 't''1'`)
	_, err = conn.Exec(ctx, "ROLLBACK") // BEGIN ran; the binding after it failed
	require.NoError(t, err)
	opts = boundBegin(pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, "t:1")
	require.NoError(t, pgx.BeginTxFunc(ctx, conn, opts, func(tx pgx.Tx) error {
		var tenant, iso, ro string
		require.NoError(t, tx.QueryRow(ctx, "SELECT zb.current_tenant(), current_setting('transaction_isolation'), current_setting('transaction_read_only')").Scan(&tenant, &iso, &ro))
		require.Equal(t, []string{"t:1", "repeatable read", "on"}, []string{tenant, iso, ro})
		return nil
	}))
	var after *string
	require.NoError(t, conn.QueryRow(ctx, "SELECT zb.current_tenant()").Scan(&after))
	require.Nil(t, after, "the binding ends with the transaction")
	require.Equal(t, pgx.TxOptions{IsoLevel: pgx.Serializable}, boundBegin(pgx.TxOptions{IsoLevel: pgx.Serializable}, ""))

	// A prelude travels with BEGIN: the lock timeout holds for the transaction only, and the
	// tenant's row exists afterwards (also when it already did).
	pre := txPrelude{lockTimeout: 1500 * time.Millisecond, ensureTenant: true}
	opts = boundBegin(pgx.TxOptions{}, "prelude-1", pre.statements("prelude-1")...)
	require.Equal(t, "BEGIN; SELECT zb.bind_tenant('prelude-1'); SELECT set_config('lock_timeout', '1500ms', true); "+
		"INSERT INTO zb.tenant (id, name) VALUES ('prelude-1', '') ON CONFLICT (id) DO NOTHING", opts.BeginQuery)
	for range 2 {
		require.NoError(t, pgx.BeginTxFunc(ctx, conn, opts, func(tx pgx.Tx) error {
			var lt, tenant string
			require.NoError(t, tx.QueryRow(ctx, "SELECT current_setting('lock_timeout'), zb.current_tenant()").Scan(&lt, &tenant))
			require.Equal(t, []string{"1500ms", "prelude-1"}, []string{lt, tenant})
			return nil
		}))
	}
	var lt string
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT current_setting('lock_timeout'), (SELECT count(*) FROM zb.tenant WHERE id = 'prelude-1')").Scan(&lt, &n))
	require.Equal(t, "0", lt, "the lock timeout ends with the transaction")
	require.Equal(t, 1, n)
	require.Empty(t, txPrelude{}.statements("x"))
	require.Equal(t, []string{"SELECT set_config('lock_timeout', '1ms', true)"}, txPrelude{lockTimeout: time.Microsecond}.statements(""))
}

// A pipelined statement runs bound to the tenant in one implicit transaction: the binding holds
// for the statement and is gone after it on the same connection; errors come back and leave
// the connection usable; COPY and batches are refused.
func TestPipelined(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: zbtest.DB(t, nil), MaxConns: 1})
	require.NoError(t, err)
	defer pool.Close()
	p := pipelined{pool: pool, tenant: "acme"}

	rows, err := p.Query(ctx, "SELECT zb.current_tenant() FROM generate_series(1, 3)")
	require.NoError(t, err)
	n := 0
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		require.Equal(t, "acme", s)
		n++
	}
	require.NoError(t, rows.Err())
	rows.Close()
	require.Equal(t, 3, n)

	var s string
	require.NoError(t, p.QueryRow(ctx, "SELECT zb.current_tenant() || $1::text", "!").Scan(&s))
	require.Equal(t, "acme!", s)
	require.ErrorIs(t, p.QueryRow(ctx, "SELECT 1 WHERE false").Scan(&s), pgx.ErrNoRows)
	tag, err := p.Exec(ctx, "SELECT set_config('zb.probe', zb.current_tenant(), false)")
	require.NoError(t, err)
	require.Equal(t, "SELECT 1", tag.String())

	// The same (only) connection afterwards: no tenant, the session-level probe from the bound
	// statement is there.
	var tenant *string
	require.NoError(t, pool.QueryRow(ctx, "SELECT zb.current_tenant(), current_setting('zb.probe')").Scan(&tenant, &s))
	require.Nil(t, tenant)
	require.Equal(t, "acme", s)

	_, err = p.Query(ctx, "SELECT 1 / 0")
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr), "%v", err)
	require.Equal(t, "22012", pgErr.Code)
	require.Error(t, p.QueryRow(ctx, "SELECT 1 / 0").Scan(&s))
	require.NoError(t, p.QueryRow(ctx, "SELECT zb.current_tenant()").Scan(&s), "the connection is usable after an error")
	require.Equal(t, "acme", s)

	_, err = p.CopyFrom(ctx, pgx.Identifier{"x"}, []string{"a"}, pgx.CopyFromRows(nil))
	require.ErrorIs(t, err, errNotPipelined)
	_, err = p.SendBatch(ctx, &pgx.Batch{}).Exec()
	require.ErrorIs(t, err, errNotPipelined)
}
