package zbctlcli_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/zbtest"
)

// zbctl forget erases a session, a context or a whole tenant (with a dry run that counts the
// same rows), and a tenant erase behind an approval waits (exit status 2) until
// 'zbctl approve ID'; 'zbctl deny ID' rejects it; 'zbctl approvals list' shows the queue.
func TestForgetScopesAndApprovals(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 64})
	env := map[string]string{"ZB_DATABASE_URL": u, "ZB_TENANT": "cli"}
	sess := uuid.NewString()
	for _, args := range [][]string{
		{"store", "--session", sess, "Ann: the tram to Belém leaves at nine."},
		{"store", "--session", sess, "Ben: then we meet at the tower."},
		{"store", "--context", "work", "The release is on Friday."},
		{"store", "--context", "work", "The demo needs the new logo."},
		{"store", "Carl likes figs."},
	} {
		r := run(t, env, args...)
		require.Zero(t, r.code, r.stderr)
	}

	r := run(t, env, "forget", "--dry-run", "--session", sess)
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "would forget session "+sess+" of tenant cli: 2 memories")
	dryTable := r.stdout[strings.Index(r.stdout, "TABLE"):]
	r = run(t, env, "forget", "--session", sess)
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "forgot session "+sess+" of tenant cli: 2 memories")
	require.Equal(t, dryTable, r.stdout[strings.Index(r.stdout, "TABLE"):], "the dry run counts what the erase removes")
	require.Regexp(t, `(?m)^session\s+1$`, r.stdout)

	r = run(t, env, "--json", "forget", "--context", "work")
	require.Zero(t, r.code, r.stderr)
	var out struct {
		Report coordinator.EraseReport `json:"report"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.EqualValues(t, 2, out.Report.Memories)
	r = run(t, env, "stats")
	require.Regexp(t, `(?m)^total\s+1$`, r.stdout, "one memory is left")

	for _, args := range [][]string{{"forget"}, {"forget", "1", "--all"}, {"forget", "--session", "nope"}, {"forget", "--all"}} {
		r = run(t, env, args...)
		require.Equal(t, 1, r.code, "%v: %s", args, r.stdout)
	}
	require.Contains(t, r.stderr, "add --yes")

	// Tenant erase behind an approval.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u})
	require.NoError(t, err)
	defer pool.Close()
	co, err := coordinator.New(&coordinator.Config{Pool: pool})
	require.NoError(t, err)
	require.NoError(t, co.SetGovernance(ctx, "cli", coordinator.GovernanceSettings{ApprovalRequired: []string{coordinator.OpTenantErase}}))
	pendingID := func(stderr string) string {
		m := regexp.MustCompile(`request (\d+) is pending`).FindStringSubmatch(stderr)
		require.NotNil(t, m, stderr)
		return m[1]
	}
	r = run(t, env, "forget", "--all", "--yes")
	require.Equal(t, 2, r.code, r.stderr)
	first := pendingID(r.stderr)
	r = run(t, env, "approvals", "list")
	require.Zero(t, r.code, r.stderr)
	require.Regexp(t, `(?m)^`+first+`\s+cli\s+tenant_erase\s+pending\s+zbctl\s`, r.stdout)
	r = run(t, env, "deny", first, "--reason", "ticket not verified", "--actor", "dpo")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "request "+first+" (tenant_erase of tenant cli): rejected")
	r = run(t, env, "approve", first)
	require.Equal(t, 1, r.code, "a rejected request cannot be approved")
	r = run(t, env, "stats")
	require.Regexp(t, `(?m)^total\s+1$`, r.stdout, "nothing was erased")

	r = run(t, env, "forget", "--all", "--yes")
	require.Equal(t, 2, r.code, r.stderr)
	second := pendingID(r.stderr)
	require.NotEqual(t, first, second)
	r = run(t, env, "approve", second)
	require.Equal(t, 1, r.code, "the requester (default actor zbctl) cannot approve its own request")
	require.Contains(t, r.stderr, "--actor")
	dpo := map[string]string{"ZB_ACTOR": "dpo"}
	for k, v := range env {
		dpo[k] = v
	}
	r = run(t, dpo, "approve", second) // the actor from ZB_ACTOR
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "request "+second+" (tenant_erase of tenant cli): executed")
	r = run(t, env, "stats")
	require.Regexp(t, `(?m)^total\s+0$`, r.stdout)
	r = run(t, env, "approvals", "list", "--status", "all")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "no requests", "the erased tenant's requests went with it")
}
