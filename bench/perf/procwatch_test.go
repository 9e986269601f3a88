package perf

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProcMemoryOfSelf(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	rss, hwm, err := procMemory(os.Getpid())
	require.NoError(t, err)
	// A Go test binary holds at least a few MiB and at most what this test could allocate.
	require.Greater(t, rss, 1.0)
	require.Less(t, rss, 4096.0)
	require.GreaterOrEqual(t, hwm, rss)
	_, _, err = procMemory(1 << 30) // no such process
	require.Error(t, err)
}

func TestWatchMemorySeesGrowth(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	ctx := context.Background()
	before, _, err := procMemory(os.Getpid())
	require.NoError(t, err)
	calls := 0
	count := func(context.Context) (int, error) { calls++; return calls, nil }
	w := watchMemory(ctx, os.Getpid(), 10*time.Millisecond, count)
	// 64 MiB touched page by page while the watch runs: its peak must include them.
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	time.Sleep(50 * time.Millisecond)
	rss, _, n, samples, err := w.Stop(ctx, os.Getpid(), count)
	require.NoError(t, err)
	require.Greater(t, rss, before+32, "the peak must see most of the 64 MiB (before %.1f MiB)", before)
	require.GreaterOrEqual(t, samples, 2)
	require.Equal(t, calls, n, "the largest count is the last one here")
	require.Equal(t, byte(1), buf[len(buf)-4096])
}

func TestGoroutinesMetric(t *testing.T) {
	t.Parallel()
	n, err := goroutinesMetric(strings.NewReader("# TYPE go_goroutines gauge\ngo_goroutines 42\n# TYPE up gauge\nup 1\n"))
	require.NoError(t, err)
	require.Equal(t, 42, n)
	_, err = goroutinesMetric(strings.NewReader("# TYPE up gauge\nup 1\n"))
	require.ErrorContains(t, err, "no go_goroutines")
	_, err = goroutinesMetric(strings.NewReader("go_goroutines forty-two\n"))
	require.Error(t, err)
}

// The load test's separate worker: started until healthy, read, watched and stopped, with a
// stand-in for zbworker (this test binary, see fakeworker_test.go).
func TestExtWorker(t *testing.T) {
	ctx := context.Background()
	self, err := os.Executable()
	require.NoError(t, err)

	t.Setenv("ZBPERF_FAKE_WORKER", "serve")
	w, err := startWorker(ctx, self, "postgres://unused")
	require.NoError(t, err)
	g, err := w.Goroutines(ctx)
	require.NoError(t, err)
	require.Equal(t, 17, g)
	if _, err := os.Stat("/proc/self/status"); err == nil {
		rss, _, err := procMemory(w.Pid())
		require.NoError(t, err)
		require.Positive(t, rss)
	}
	require.Equal(t, "clean", w.Stop(10*time.Second))

	t.Setenv("ZBPERF_FAKE_WORKER", "fail-stop")
	w, err = startWorker(ctx, self, "postgres://unused")
	require.NoError(t, err)
	got := w.Stop(10 * time.Second)
	require.Contains(t, got, "exit status 2")
	require.Contains(t, got, "jobs still running", "the worker's own message is reported")

	t.Setenv("ZBPERF_FAKE_WORKER", "fail-start")
	_, err = startWorker(ctx, self, "postgres://unused")
	require.ErrorContains(t, err, "exited at start")
	require.ErrorContains(t, err, "is the database migrated")

	_, err = startWorker(ctx, "/nonexistent/zbworker", "postgres://unused")
	require.ErrorContains(t, err, "error starting the worker")
}
