package zbctlcli_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/bench/locomo"
	"github.com/zenbrain/zb/cmd/zbctl/zbctlcli"
	"github.com/zenbrain/zb/coordinator"
)

// Every command that takes --tenant refuses an invalid tenant id the way the coordinator does
// (store and recall), before it connects: exit code 1 and a message naming the flag and the rule.
func TestTenantFlagIsValidated(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_HOME": homeDir(t)} // no database: a valid tenant gets past the check
	var withTenant []string
	for path, flags := range zbctlcli.CommandFlags() {
		for _, f := range flags {
			if f.Name == "tenant" {
				withTenant = append(withTenant, path)
			}
		}
	}
	require.Contains(t, withTenant, "stats")
	require.Contains(t, withTenant, "jobs list")
	require.Contains(t, withTenant, "approvals list")
	require.GreaterOrEqual(t, len(withTenant), 20)
	for _, path := range withTenant {
		args := strings.Fields(path)
		for _, bad := range []string{"a b", "-x", strings.Repeat("t", 129), "", "ä"} {
			if bad == "" && (path == "jobs list" || path == "approvals list" || path == "reembed") {
				continue // an empty tenant means every tenant there
			}
			r := run(t, env, append(args, "--tenant="+bad)...)
			require.Equal(t, 1, r.code, "%s --tenant=%q: %s", path, bad, r.stdout)
			require.Contains(t, r.stderr, fmt.Sprintf("invalid tenant id %q for --tenant: %s", bad, coordinator.TenantRule), "%s --tenant=%q", path, bad)
		}
	}

	// With --json the error is JSON on stdout.
	r := run(t, env, "--json", "stats", "--tenant", "a b")
	require.Equal(t, 1, r.code)
	var e map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e))
	require.Equal(t, `invalid tenant id "a b" for --tenant: `+coordinator.TenantRule, e["error"])

	// The default from ZB_TENANT is checked too, and named as such; a valid --tenant overrides it.
	bad := map[string]string{"ZB_HOME": env["ZB_HOME"], "ZB_TENANT": "a b"}
	for _, args := range [][]string{{"stats"}, {"recall", "x"}, {"store", "x"}, {"mcp"}} {
		r := run(t, bad, args...)
		require.Equal(t, 1, r.code, args)
		require.Contains(t, r.stderr, `invalid tenant id "a b" in ZB_TENANT (the default of --tenant): `+coordinator.TenantRule, args)
	}
	r = run(t, bad, "stats", "--tenant", "ok")
	require.Equal(t, 1, r.code)
	require.NotContains(t, r.stderr, "tenant id", "a valid --tenant overrides ZB_TENANT")
	require.Contains(t, r.stderr, "no database")
}

// Flags with a documented range refuse values outside it (and non-numbers) when parsed, before
// anything connects.
func TestRangeFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_HOME": homeDir(t)}
	for _, tc := range []struct {
		args     []string
		flag     string
		min, max int
	}{
		{[]string{"jobs", "list"}, "--limit", 1, coordinator.JobListMax},
		{[]string{"recall", "q"}, "-k/--k", 1, coordinator.MaxK},
		{[]string{"context", "q"}, "--budget", 1, zbctlcli.ContextBudgetMax},
		{[]string{"review", "due"}, "--limit", 1, coordinator.MaxLifecycleLimit},
		{[]string{"reconsolidation", "log"}, "--limit", 1, coordinator.MaxLifecycleLimit},
		{[]string{"intentions", "list"}, "--limit", 1, coordinator.MaxLifecycleLimit},
		{[]string{"approvals", "list"}, "--limit", 1, coordinator.MaxApprovalList},
		{[]string{"vacuum", "--status"}, "--limit", 1, coordinator.VacuumRequestListMax},
		{[]string{"reembed"}, "--batch", 1, coordinator.ReembedMaxPerJob},
		{[]string{"import", "f.jsonl"}, "--batch", 1, coordinator.ImportMaxBatch},
		{[]string{"bench", "locomo"}, "--k", locomo.KMin, locomo.KMax},
	} {
		name := tc.flag[strings.LastIndex(tc.flag, "-")+1:]
		for _, v := range []string{itoa(tc.min - 1), itoa(tc.max + 1), "x", "1.5", ""} {
			r := run(t, env, append(tc.args, "--"+name+"="+v)...)
			require.Equal(t, 1, r.code, "%v --%s=%s: %s", tc.args, name, v, r.stdout)
			rule := fmt.Sprintf("must be in %d..%d", tc.min, tc.max)
			if _, err := strconv.Atoi(v); err != nil {
				rule = fmt.Sprintf("must be an integer in %d..%d", tc.min, tc.max)
			}
			require.Contains(t, r.stderr, fmt.Sprintf("invalid argument %q for %s: %s", v, tc.flag, rule), "%v --%s=%s", tc.args, name, v)
		}
	}
	// The shorthand names the flag the same way.
	r := run(t, env, "recall", "-k", "0", "q")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, `invalid argument "0" for -k/--k: must be in 1..1000`)
	r = run(t, env, "recall", "-k", "x", "q")
	require.Equal(t, 1, r.code)
	require.Equal(t, "zbctl: invalid argument \"x\" for -k/--k: must be an integer in 1..1000\n", r.stderr)
}

func itoa(n int) string { return strconv.Itoa(n) }

// A value a flag cannot parse gives a message naming the flag and what it takes, never the
// parser's internals (strconv.ParseInt: parsing "x": invalid syntax): every int, duration, bool
// and float flag of every command.
func TestFlagParseErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_HOME": homeDir(t)}
	checked := 0
	for path, flags := range zbctlcli.CommandFlags() {
		for _, f := range flags {
			switch f.Type {
			case "int", "int32", "int64", "uint", "float64", "duration", "bool":
			default:
				continue
			}
			name := "--" + f.Name
			if f.Shorthand != "" {
				name = "-" + f.Shorthand + "/--" + f.Name
			}
			args := append(strings.Fields(path), "--"+f.Name+"=x")
			r := run(t, env, args...)
			require.Equal(t, 1, r.code, "%v: %s", args, r.stdout)
			require.Contains(t, r.stderr, fmt.Sprintf(`invalid argument "x" for %s: must be `, name), args)
			for _, leak := range []string{"strconv", "Parse", "invalid syntax", "time: "} {
				require.NotContains(t, r.stderr, leak, args)
			}
			checked++
		}
	}
	require.Greater(t, checked, 30)
	r := run(t, env, "dev", "up", "--embedding-dim", "x")
	require.Equal(t, "zbctl: invalid argument \"x\" for --embedding-dim: must be an integer\n", r.stderr)
	r = run(t, env, "bench", "ablation", "--parallel", "x")
	require.Contains(t, r.stderr, `invalid argument "x" for --parallel: must be `)
}
