package zbworkercli

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/worker"
)

// --job-timeout and --rescue-after reach the worker's configuration (worker's own test follows
// them into River's); without --rescue-after the worker's default applies.
func TestRescueFlagsReachWorkerConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args                 []string
		timeout, rescueAfter time.Duration
	}{
		{nil, worker.JobTimeoutDefault, 0},
		{[]string{"--rescue-after", "15m"}, worker.JobTimeoutDefault, 15 * time.Minute},
		{[]string{"--job-timeout", "2m", "--rescue-after", "150s"}, 2 * time.Minute, 150 * time.Second},
	} {
		var o options
		cmd := newCommand(&o, func(string) string { return "" }, io.Discard, io.Discard)
		require.NoError(t, cmd.ParseFlags(tc.args), tc.args)
		require.NoError(t, o.checkTimeouts(), tc.args)
		cfg := o.workerConfig()
		require.Equal(t, tc.timeout, cfg.JobTimeout, tc.args)
		require.Equal(t, tc.rescueAfter, cfg.RescueStuckJobsAfter, tc.args)
	}
}

// Bad timeouts fail with exit code 1 and a message naming the flags, before any connection (no
// database is configured here).
func TestBadTimeoutFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rescue-after", "5m"}, "--rescue-after 5m0s is shorter than --job-timeout 10m0s"},
		{[]string{"--job-timeout", "2m", "--rescue-after", "1m"}, "--rescue-after 1m0s is shorter than --job-timeout 2m0s"},
		{[]string{"--rescue-after", "-1s"}, "--rescue-after -1s: must not be negative"},
		{[]string{"--job-timeout", "0s"}, "--job-timeout 0s: must be positive"},
		{[]string{"--job-timeout", "-1ns"}, "--job-timeout -1ns: must be positive"},
	} {
		var errOut bytes.Buffer
		code := RunContext(context.Background(), append([]string{"--home", t.TempDir()}, tc.args...),
			func(string) string { return "" }, io.Discard, &errOut)
		require.Equal(t, 1, code, tc.args)
		require.Contains(t, errOut.String(), tc.want, tc.args)
	}
}

// --help states the rescue's default.
func TestHelpStatesRescueDefault(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	code := RunContext(context.Background(), []string{"--help"}, func(string) string { return "" }, &out, io.Discard)
	require.Equal(t, 0, code)
	require.Contains(t, out.String(), "at least --job-timeout (0: --job-timeout + 1m, which is 11m with the default job timeout)")
	require.Contains(t, out.String(), "before it is cancelled (the vacuum job: 6h) (default 10m0s)")
}
