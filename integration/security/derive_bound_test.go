package security

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// TestDeriveReadsAreBound runs Derive on connections whose unbound reads see the wrong rows:
// a zb_worker login whose session default binds it to tenant B (options -c zb.tenant_id=B), and
// a zb_app login (unbound, it sees nothing). Derive of tenant A must still find and derive all
// of A's memories — every read, including the ones before the lifecycle transaction (the
// pending sweep and the embedding read), is bound to A — and leave B's memories underived.
func TestDeriveReadsAreBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	for _, s := range []string{
		"Ada Lovelace wrote the first program.", "Grace Hopper built a compiler in Arlington.",
		"Alan Turing worked at Bletchley Park.",
	} {
		_, err := e.co.Store(ctx, coordinator.StoreInput{TenantID: tenantA, Content: s})
		require.NoError(t, err)
		_, err = e.co.Store(ctx, coordinator.StoreInput{TenantID: tenantB, Content: s})
		require.NoError(t, err)
	}
	underived := func(tenant string) int64 {
		return queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND derived_at IS NULL", tenant)
	}
	require.EqualValues(t, 3, underived(tenantA))

	// A worker whose session default names tenant B.
	_, name := e.login(t, "worker")
	u, err := url.Parse(e.url)
	require.NoError(t, err)
	u.User = url.UserPassword(name, "secret-test-password")
	qs := u.Query()
	qs.Set("options", "-c zb.tenant_id="+tenantB)
	u.RawQuery = strings.ReplaceAll(qs.Encode(), "+", "%20") // libpq reads %20, not +, as a space
	wrk := e.coordinator(t, openPool(t, u.String()))
	rep, err := wrk.Derive(ctx, jobs.DeriveArgs{TenantID: tenantA, Pending: true}, nil)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Requested, "the pending sweep reads tenant A's rows, not the session's tenant B")
	require.Len(t, rep.Derived, 3)
	require.Zero(t, underived(tenantA))
	require.EqualValues(t, 3, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND embedding IS NOT NULL", tenantA),
		"the embedding read saw A's content")
	require.Positive(t, queryInt(t, e.super, "SELECT count(*) FROM zb.mention WHERE tenant_id = $1", tenantA))
	require.EqualValues(t, 3, underived(tenantB), "tenant B is untouched")

	// The application role derives its own tenant (unbound it would see nothing).
	appPool, _ := e.login(t, "app")
	app := e.coordinator(t, appPool)
	rep, err = app.Derive(ctx, jobs.DeriveArgs{TenantID: tenantB, Pending: true}, nil)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Requested)
	require.Zero(t, underived(tenantB))
	require.EqualValues(t, 3, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND embedding IS NOT NULL", tenantB))
}
