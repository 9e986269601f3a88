package pgcluster_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zenbrain/zb/internal/pgcluster"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestServerEnv(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/usr/bin", "HOME=/root"}
	got := pgcluster.ServerEnv(base)
	require.Equal(t, append(base, "MALLOC_MMAP_THRESHOLD_=33554432", "MALLOC_TRIM_THRESHOLD_=67108864"), got)
	require.Len(t, base, 2, "the caller's slice is not changed")

	// A setting of the caller's environment wins, even an empty one; the other is still added.
	mine := []string{"PATH=/usr/bin", "MALLOC_TRIM_THRESHOLD_=0"}
	require.Equal(t, append(mine, "MALLOC_MMAP_THRESHOLD_=33554432"), pgcluster.ServerEnv(mine))
	// A variable whose name only starts alike is another variable.
	other := []string{"MALLOC_MMAP_THRESHOLD_X=1"}
	require.Contains(t, pgcluster.ServerEnv(other), "MALLOC_MMAP_THRESHOLD_=33554432")
}

// The server runs with the allocator settings (read back from the postmaster's environment),
// and a setting of the starting process's environment replaces the default.
func TestStartAllocatorSettings(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc to read the server's environment")
	}
	t.Setenv("MALLOC_TRIM_THRESHOLD_", "1048576")
	dir, err := os.MkdirTemp("", "zbpgcluster-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755)) // the server's user may not be the caller (root)
	cl, err := pgcluster.New(&pgcluster.Config{
		Dir: dir, AnyPort: true, Ephemeral: true, BinDir: os.Getenv("ZB_PG_BINDIR"),
		Settings: map[string]string{"log_min_messages": "fatal"},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cl.Destroy(ctx)
		_ = os.RemoveAll(dir)
	})
	require.NoError(t, cl.Init(ctx))
	require.NoError(t, cl.Start(ctx))

	pidFile, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	require.NoError(t, err)
	pid := strings.SplitN(string(pidFile), "\n", 2)[0]
	environ, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
	require.NoError(t, err)
	vars := strings.Split(string(environ), "\x00")
	require.Contains(t, vars, "MALLOC_MMAP_THRESHOLD_=33554432")
	require.Contains(t, vars, "MALLOC_TRIM_THRESHOLD_=1048576", "the caller's setting")
	require.NotContains(t, vars, "MALLOC_TRIM_THRESHOLD_=67108864")
}

// URL carries the password; RedactedURL, the form status output shows, does not.
func TestInfoURL(t *testing.T) {
	t.Parallel()
	info := &pgcluster.Info{Port: 54329, Password: "0123456789abcdef", Superuser: "zb", Database: "zenbrain"}
	require.Equal(t, "postgres://zb:0123456789abcdef@127.0.0.1:54329/zenbrain?sslmode=disable", info.URL("zenbrain"))
	red := info.RedactedURL("zenbrain")
	require.Equal(t, "postgres://zb:"+pgcluster.RedactedPassword+"@127.0.0.1:54329/zenbrain?sslmode=disable", red)
	require.NotContains(t, red, info.Password)
}

// After a crash (the postmaster killed with SIGKILL, its postmaster.pid left behind) Start
// brings the server back, and returns only once it accepts connections: a connection made at
// once succeeds. Three crashes in a row, to catch the race of a dead postmaster not yet reaped.
func TestStartAfterCrash(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "zbpgcluster-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755)) // the server's user may not be the caller (root)
	cl, err := pgcluster.New(&pgcluster.Config{
		Dir: dir, AnyPort: true, Ephemeral: true, BinDir: os.Getenv("ZB_PG_BINDIR"),
		Settings: map[string]string{"log_min_messages": "fatal"},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cl.Destroy(ctx)
		_ = os.RemoveAll(dir)
	})
	require.NoError(t, cl.Init(ctx))
	require.NoError(t, cl.Start(ctx))
	u, err := cl.URL()
	require.NoError(t, err)

	for i := range 3 {
		pidFile, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
		require.NoError(t, err)
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))

		require.NoError(t, cl.Start(ctx), "start after crash %d", i+1)
		require.True(t, cl.Running(ctx))
		conn, err := pgx.Connect(ctx, u)
		require.NoError(t, err, "connect right after the start that followed crash %d", i+1)
		var one int
		require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
		require.NoError(t, conn.Close(ctx))
	}
}
