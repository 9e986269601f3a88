package zbctlcli_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBenchEvalUsage checks that 'bench ablation' and 'bench experiments' refuse bad flags with
// exit code 2 before touching a database.
func TestBenchEvalUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "ablation", "--workloads", "easy"}, `unknown workload "easy"`},
		{[]string{"bench", "ablation", "--arms", "telepathy"}, `unknown algorithm "telepathy"`},
		{[]string{"bench", "ablation", "--seeds", "42,x"}, `bad seed "x"`},
		{[]string{"bench", "ablation", "--report-only"}, "--report-only needs --run-log"},
		{[]string{"bench", "experiments", "--only", "dreams"}, `unknown experiment "dreams"`},
	} {
		r := run(t, map[string]string{}, tc.args...)
		require.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, tc.args)
	}
}
