package security

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// The attacks of an adversarial review, each run as the attacker's role: every one of them worked
// against an earlier schema, and each test asserts it now fails.

// storeFor stores n memories for tenant through the superuser's coordinator and returns their ids.
func (e *env) storeFor(t *testing.T, tenant string, contents ...string) []int64 {
	t.Helper()
	var ids []int64
	for _, c := range contents {
		e.clock.Add(time.Minute)
		r, err := e.co.Store(ctxT(t), coordinator.StoreInput{TenantID: tenant, Content: c})
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	return ids
}

// requireState fails unless err is a PostgreSQL error with SQLSTATE code.
func requireState(t *testing.T, err error, code string, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	require.Equal(t, code, sqlState(err), append([]any{"error: %v"}, err)...)
}

// TestAttackEraseOwnTenantKeepsBinding: a login bound to tenant A erases A (which it may) and
// then tries to act for B. The erase used to delete the login's bindings, after which the login
// counted as unbound and could bind any tenant. Bindings are not tenant data: they survive the
// erase, and the login still sees nothing of B and cannot write it.
func TestAttackEraseOwnTenantKeepsBinding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenantA, tenantB = "esc-a", "esc-b"
	e.storeFor(t, tenantA, "Alpha's own note about the garden.")
	e.storeFor(t, tenantB, "Bravo's secret: the vault code is 4412.", "Bravo plans a trip to Oslo.")
	attacker, name := e.login(t, "app", tenantA)

	tx, err := attacker.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "SELECT zb.bind_tenant($1)", tenantA)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "SELECT zb.erase($1, 'tenant')", tenantA)
	require.NoError(t, err, "a bound login may erase its own tenant")
	require.NoError(t, tx.Commit(ctx))
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.tenant WHERE id = $1", tenantA))
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.tenant_binding WHERE role_name = $1 AND tenant_id = $2",
		name, tenantA), "the binding outlives the tenant's erase")

	// Still bound: naming B gives nothing, reads nothing, writes nothing.
	inTenant(t, attacker, tenantB, func(tx pgx.Tx) {
		var cur *string
		require.NoError(t, tx.QueryRow(ctx, "SELECT zb.current_tenant()").Scan(&cur))
		require.Nil(t, cur, "a bound login naming another tenant has no tenant")
		require.Zero(t, queryInt(t, tx, "SELECT count(*) FROM zb.memory"))
		_, err := tx.Exec(ctx, `INSERT INTO zb.memory (tenant_id, layer, kind, content, created_at, updated_at, last_accessed_at)
			VALUES ($1, 'semantic', 'fact', 'planted', now(), now(), now())`, tenantB)
		requireState(t, err, "42501", "writing B's memories")
	})
	// Nor can it delete its own binding.
	inTenant(t, attacker, tenantA, func(tx pgx.Tx) {
		_, err := tx.Exec(ctx, "DELETE FROM zb.tenant_binding WHERE role_name = $1", name)
		requireState(t, err, "42501")
	})
	// And B's erase is refused.
	inTenant(t, attacker, tenantA, func(tx pgx.Tx) {
		_, err := tx.Exec(ctx, "SELECT zb.erase($1, 'tenant')", tenantB)
		requireState(t, err, "42501")
	})
	require.EqualValues(t, 2, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND status = 'active'", tenantB))
}

// TestAttackForgedApproval: the application inserts an approval request that is already approved
// in an operator's name, to pass the approval gate of a tenant erase. A request is born pending
// and undecided whoever inserts it; the application cannot decide one; the erase stays gated.
func TestAttackForgedApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenant = "gated"
	e.storeFor(t, tenant, "A memory behind an approval gate.")
	require.NoError(t, e.co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{
		ApprovalRequired: []string{coordinator.OpTenantErase},
	}))
	attacker, _ := e.login(t, "app")

	for _, forged := range []string{
		`INSERT INTO zb.approval_request (tenant_id, operation, status, requested_by, requested_at, decided_by, decided_at)
		 VALUES ($1, 'tenant_erase', 'approved', 'mallory', now(), 'ops-lead', now()) RETURNING id`,
		`INSERT INTO zb.approval_request (tenant_id, operation, status, requested_by, requested_at, decided_at)
		 VALUES ($1, 'tenant_erase', 'executed', 'mallory', now(), now()) RETURNING id`,
		`INSERT INTO zb.approval_request (tenant_id, operation, requested_by, requested_at, decided_by)
		 VALUES ($1, 'tenant_erase', 'mallory', now(), 'ops-lead') RETURNING id`,
	} {
		inTenant(t, attacker, tenant, func(tx pgx.Tx) {
			var id int64
			err := tx.QueryRow(ctx, forged, tenant).Scan(&id)
			requireState(t, err, "42501", forged)
			require.Contains(t, err.Error(), "inserted pending")
		})
	}
	// A pending request is allowed, but the application cannot approve it, and the erase with it
	// is refused.
	inTenant(t, attacker, tenant, func(tx pgx.Tx) {
		var id int64
		require.NoError(t, tx.QueryRow(ctx, `INSERT INTO zb.approval_request (tenant_id, operation, requested_by, requested_at)
			VALUES ($1, 'tenant_erase', 'mallory', now()) RETURNING id`, tenant).Scan(&id))
		_, err := tx.Exec(ctx, "SAVEPOINT s")
		require.NoError(t, err)
		_, err = tx.Exec(ctx, "UPDATE zb.approval_request SET status = 'approved', decided_by = 'ops-lead', decided_at = now() WHERE id = $1", id)
		requireState(t, err, "42501")
		_, err = tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s")
		require.NoError(t, err)
		_, err = tx.Exec(ctx, "SELECT zb.erase($1, 'tenant', p_approval => $2)", tenant, id)
		requireState(t, err, "ZB002")
	})
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.tenant WHERE id = $1", tenant))
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.approval_request WHERE tenant_id = $1", tenant),
		"no forged request was written")
}

// TestAttackSessionLevelBinding: behind a pooler in transaction mode, clients share server
// sessions. A client that binds with a session-level SET (or a connection default) left its
// tenant to the next client of the connection, which then read that tenant's memories without
// ever binding one. Only zb.bind_tenant in the same transaction counts; anything else is an
// error that says how to bind. One connection plays the pooler's server session here.
func TestAttackSessionLevelBinding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const victim = "victim"
	e.storeFor(t, victim, "The victim's diary: I moved to Porto.")
	pool, _ := e.login(t, "app")
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()

	for _, bind := range []string{
		"SET zb.tenant_id = 'victim'",                        // client 1, session level
		"SELECT set_config('zb.tenant_id', 'victim', false)", // the same through set_config
	} {
		_, err = conn.Exec(ctx, bind)
		require.NoError(t, err, bind)
		// Client 2, in its own transaction, never binds.
		for _, q := range []string{"SELECT count(*) FROM zb.memory", "SELECT count(*) FROM zb.recall('victim', 'diary Porto')"} {
			var n int64
			err = conn.QueryRow(ctx, q).Scan(&n)
			requireState(t, err, "42501", "%s after %s", q, bind)
			require.Contains(t, err.Error(), "not by zb.bind_tenant")
			require.NotContains(t, err.Error(), victim, "the error does not name the other client's tenant")
		}
		_, err = conn.Exec(ctx, "RESET zb.tenant_id")
		require.NoError(t, err)
	}

	// A transaction-local setting made without zb.bind_tenant does not count either.
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, "SELECT set_config('zb.tenant_id', 'victim', true)")
	require.NoError(t, err)
	err = tx.QueryRow(ctx, "SELECT count(*) FROM zb.memory").Scan(new(int64))
	requireState(t, err, "42501")
	_ = tx.Rollback(ctx)

	// A stamp forged at session level does not match a later transaction.
	_, err = conn.Exec(ctx, "SET zb.tenant_id = 'victim'")
	require.NoError(t, err)
	var stamp string
	require.NoError(t, conn.QueryRow(ctx, "SELECT zb.xact_stamp()").Scan(&stamp))
	_, err = conn.Exec(ctx, "SELECT set_config('zb.tenant_xact', $1, false)", stamp)
	require.NoError(t, err)
	err = conn.QueryRow(ctx, "SELECT count(*) FROM zb.memory").Scan(new(int64))
	requireState(t, err, "42501")
	_, err = conn.Exec(ctx, "RESET zb.tenant_id; RESET zb.tenant_xact")
	require.NoError(t, err)

	// A binding made properly lasts one transaction: the next one, unbound, sees nothing.
	tx, err = conn.Begin(ctx)
	require.NoError(t, err)
	var bound string
	require.NoError(t, tx.QueryRow(ctx, "SELECT zb.bind_tenant('victim')").Scan(&bound))
	require.Equal(t, victim, bound)
	require.EqualValues(t, 1, queryInt(t, tx, "SELECT count(*) FROM zb.memory"))
	require.NoError(t, tx.Commit(ctx))
	require.Zero(t, queryInt(t, conn, "SELECT count(*) FROM zb.memory"), "the next transaction of the session is unbound")

	// A connection default (options=-c zb.tenant_id=...) is a session-level setting too.
	u, err := url.Parse(poolURL(t, pool))
	require.NoError(t, err)
	qs := u.Query()
	qs.Set("options", "-c zb.tenant_id="+victim)
	u.RawQuery = strings.ReplaceAll(qs.Encode(), "+", "%20") // libpq reads %20, not +, as a space
	withDefault := openPool(t, u.String())
	err = withDefault.QueryRow(ctx, "SELECT count(*) FROM zb.memory").Scan(new(int64))
	requireState(t, err, "42501")
}

// poolURL returns the connection string pool was opened with.
func poolURL(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	return pool.Config().ConnString()
}

// TestAttackAuditForgery: the application wrote audit events of any action, actor and time —
// an erase that never happened, an approval by an operator, an event back-dated by years — and
// an unbound worker login wrote them for any tenant. The server now records when and by which
// login a row was written, refuses unknown actions, erase actions outside the erase functions,
// governance actions from non-operators and rows of a tenant the transaction is not bound to.
func TestAttackAuditForgery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenant = "audited"
	e.storeFor(t, tenant, "A memory with an audit trail.")
	app, appName := e.login(t, "app")
	wrk, _ := e.login(t, "worker")
	insert := `INSERT INTO zb.audit_event (tenant_id, at, actor, action, detail) VALUES ($1, $2, 'alice', $3, '{}')`
	yearsAgo := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)

	for _, c := range []struct {
		action, want string
	}{
		{"tenant.erase", "zb.erase only"},
		{"memory.erase", "zb.erase only"},
		{"approval.approve", "operators only"},
		{"governance.update", "operators only"},
		{"memory.nuke", "unknown action"},
	} {
		inTenant(t, app, tenant, func(tx pgx.Tx) {
			_, err := tx.Exec(ctx, insert, tenant, yearsAgo, c.action)
			requireState(t, err, "42501", c.action)
			require.Contains(t, err.Error(), c.want)
		})
	}
	// The server's columns cannot be supplied.
	for _, col := range []string{"recorded_at", "login"} {
		inTenant(t, app, tenant, func(tx pgx.Tx) {
			_, err := tx.Exec(ctx, `INSERT INTO zb.audit_event (tenant_id, at, actor, action, `+col+`)
				VALUES ($1, now(), 'alice', 'memory.feedback', $2)`, tenant, "2019-01-01")
			requireState(t, err, "42501", col)
		})
	}
	// An unbound worker login cannot write events for a tenant.
	_, err := wrk.Exec(ctx, insert, tenant, yearsAgo, "memory.feedback")
	requireState(t, err, "42501")
	require.Contains(t, err.Error(), "bound to its tenant")

	// A legitimate event keeps its stated time, and the server records its own.
	inTenant(t, app, tenant, func(tx pgx.Tx) {
		_, err := tx.Exec(ctx, insert, tenant, yearsAgo, "memory.feedback")
		require.NoError(t, err)
		var at, recorded time.Time
		var login string
		require.NoError(t, tx.QueryRow(ctx, `SELECT at, recorded_at, login FROM zb.audit_event
			WHERE tenant_id = $1 AND actor = 'alice'`, tenant).Scan(&at, &recorded, &login))
		require.True(t, at.Equal(yearsAgo))
		require.WithinDuration(t, time.Now(), recorded, 5*time.Minute, "recorded_at is the server's time")
		require.Equal(t, appName, login)
	})
	// The Go API's own events carry the server's record too.
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND (recorded_at IS NULL OR login IS NULL)", tenant))
}

// TestAttackHugeRecall: a 100,000-word query took 83 s of CPU in zb.recall against a tiny tenant.
// The SQL API has the Go API's bounds: at most 64 KiB and 1,024 distinct terms, refused at once.
func TestAttackHugeRecall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenant = "dos"
	e.storeFor(t, tenant, "Four small memories.", "About coffee.", "About tea.", "About the garden.")
	app, _ := e.login(t, "app")
	words := make([]string, 100000)
	for i := range words {
		words[i] = "w" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	huge := strings.Join(words, " ")
	inTenant(t, app, tenant, func(tx pgx.Tx) {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := tx.QueryRow(qctx, "SELECT count(*) FROM zb.recall($1, $2)", tenant, huge).Scan(new(int64))
		requireState(t, err, "22023")
		require.Contains(t, err.Error(), "at most 65536")
	})
	// Under the byte bound, too many distinct terms.
	var distinct []string
	for i := 0; len(strings.Join(distinct, " ")) < 60000; i++ {
		distinct = append(distinct, "t"+strings.Repeat(string(rune('a'+i%26)), 1+i/26%5)+string(rune('a'+(i/130)%26))+string(rune('a'+(i/3380)%26)))
	}
	inTenant(t, app, tenant, func(tx pgx.Tx) {
		err := tx.QueryRow(ctx, "SELECT count(*) FROM zb.recall($1, $2)", tenant, strings.Join(distinct, " ")).Scan(new(int64))
		requireState(t, err, "22023")
		require.Contains(t, err.Error(), "distinct terms")
	})
	// The Go API refuses the same.
	_, err := e.co.Recall(ctx, tenant, strings.Join(distinct, " "), &coordinator.RecallOpts{ReadOnly: true})
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	// An ordinary query still works.
	inTenant(t, app, tenant, func(tx pgx.Tx) {
		require.Positive(t, queryInt(t, tx, "SELECT count(*) FROM zb.recall($1, 'coffee')", tenant))
	})
}

// TestAttackNotifyChannel: any login may LISTEN on the insert channel; it carried every tenant's
// id on each store. The payload is empty.
func TestAttackNotifyChannel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	listener, _ := e.login(t, "app")
	conn, err := listener.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "LISTEN zb_memory_inserted")
	require.NoError(t, err)
	e.storeFor(t, "notify-secret-tenant", "A memory whose tenant id must not travel.")
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := conn.Conn().WaitForNotification(wctx)
	require.NoError(t, err)
	require.Empty(t, n.Payload, "the notification carries no tenant id")
}
