package zbworkercli_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/cmd/zbworker/zbworkercli"
	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }

func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = zbworkercli.RunContext(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
	return code, out.String(), errOut.String()
}

// --help lists every schedule's flag with its default and how to turn it off.
func TestHelpListsSchedules(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, nil, "--help")
	require.Equal(t, 0, code)
	for _, f := range []string{
		"--decay-interval", "--review-interval", "--sleep-interval", "--sweep-interval",
		"--idle-interval", "--prospective-interval", "--vacuum-interval",
	} {
		require.Contains(t, out, f)
	}
	require.Contains(t, out, "how often due time intentions fire (-1ns disables) (default 1m0s)")
	require.Contains(t, out, "how often erased content is vacuumed away, as the tables' owner (-1ns disables) (default 1m0s)")
}

// Bad flags and environment fail with exit code 1 and a message naming what is wrong, before any
// job runs.
func TestBadFlags(t *testing.T) {
	t.Parallel()
	code, _, errOut := run(t, nil, "--log-level", "loud")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, `--log-level "loud"`)
	for _, v := range []string{"many", "0", "-2"} {
		code, _, errOut = run(t, map[string]string{"ZB_WORKER_CONCURRENCY": v})
		require.Equal(t, 1, code, v)
		require.Contains(t, errOut, `ZB_WORKER_CONCURRENCY="`+v+`": want a positive integer`)
	}

	url := zbtest.DB(t, nil)
	for _, tc := range []struct{ flag, want string }{
		{"--prospective-interval", "Config.ProspectiveInterval must be at least 100ms or -1 (disabled), got 1ms"},
		{"--idle-interval", "Config.IdleInterval must be at least 100ms or -1 (disabled), got 1ms"},
		{"--vacuum-interval", "Config.VacuumInterval must be at least 100ms or -1 (disabled), got 1ms"},
	} {
		code, _, errOut := run(t, nil, "--database-url", url, "--http-addr", "", tc.flag, "1ms")
		require.Equal(t, 1, code, tc.flag)
		require.Contains(t, errOut, tc.want, tc.flag)
	}
}

// The schedule flags reach the worker: with --prospective-interval 200ms the tick repeats; with
// -1ns (and decay every 200ms, so that the leader's schedules are seen running) no tick is ever
// queued. SIGTERM (the context) stops it with exit code 0.
func TestScheduleFlags(t *testing.T) {
	t.Parallel()
	count := func(t *testing.T, conn *pgx.Conn, kind, task string) int {
		var n int
		require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM river.river_job
			WHERE kind = $1 AND ($2 = '' OR args->>'task' = $2) AND state = 'completed'`, kind, task).Scan(&n))
		return n
	}
	for _, tc := range []struct {
		name, prospective, decay string
		kind, task               string // three of these completed show the schedules running
		ticks                    bool
	}{
		{"tick every 200ms", "200ms", "-1ns", "zb_prospective_tick", "", true},
		{"tick off", "-1ns", "200ms", "zb_schedule", "decay", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := zbtest.DB(t, nil)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			stopped := false
			var errOut bytes.Buffer
			go func() {
				done <- zbworkercli.RunContext(ctx, []string{
					"--database-url", url, "--http-addr", "",
					"--decay-interval", tc.decay, "--review-interval", "-1ns", "--sleep-interval", "-1ns",
					"--sweep-interval", "-1ns", "--idle-interval", "-1ns", "--vacuum-interval", "-1ns",
					"--prospective-interval", tc.prospective,
				}, func(string) string { return "" }, io.Discard, &errOut)
			}()
			t.Cleanup(func() { // a failed assertion still stops the worker before the database goes
				if !stopped {
					cancel()
					<-done
				}
			})
			conn, err := pgx.Connect(context.Background(), url)
			require.NoError(t, err)
			defer conn.Close(context.Background())
			deadline := time.Now().Add(60 * time.Second)
			for count(t, conn, tc.kind, tc.task) < 3 {
				require.True(t, time.Now().Before(deadline), "three completed %s %s jobs within 60 s", tc.kind, tc.task)
				time.Sleep(50 * time.Millisecond)
			}
			cancel()
			code := <-done
			stopped = true
			require.Equal(t, 0, code, errOut.String())
			var ticks int
			require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM river.river_job WHERE kind = 'zb_prospective_tick'`).Scan(&ticks))
			require.Equal(t, tc.ticks, ticks > 0, "ticks queued: %d", ticks)
		})
	}
}
