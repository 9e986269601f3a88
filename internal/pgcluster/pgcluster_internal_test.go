package pgcluster

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// waitReady gives up after its timeout with an error that names the server log and shows its
// end, and at once when the postmaster of postmaster.pid is dead.
func TestWaitReady(t *testing.T) {
	t.Parallel()

	type testBundle struct {
		cl   *Cluster
		info *Info
	}
	setup := func(t *testing.T, pid int) *testBundle {
		t.Helper()
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "postmaster.pid"), []byte(strconv.Itoa(pid)+"\n"+dir+"\n"), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "postgres.log"), []byte("FATAL:  could not map anonymous shared memory\n"), 0o600))
		// A port nothing listens on.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := l.Addr().(*net.TCPAddr).Port
		require.NoError(t, l.Close())
		return &testBundle{
			cl:   &Cluster{cfg: Config{Dir: dir}},
			info: &Info{Port: port, Superuser: "zb", Password: "x", Database: "zenbrain"},
		}
	}

	t.Run("TimeoutNamesTheLog", func(t *testing.T) {
		t.Parallel()
		b := setup(t, os.Getpid()) // a live process stands in for a postmaster that never listens
		err := b.cl.waitReady(context.Background(), b.info, 300*time.Millisecond)
		require.Error(t, err)
		require.NotErrorIs(t, err, errServerGone)
		require.Contains(t, err.Error(), "did not accept connections on 127.0.0.1:"+strconv.Itoa(b.info.Port)+" within 300ms")
		require.Contains(t, err.Error(), filepath.Join(b.cl.cfg.Dir, "postgres.log"))
		require.Contains(t, err.Error(), "could not map anonymous shared memory", "the log's end is shown")
	})

	t.Run("DeadPostmaster", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("true")
		require.NoError(t, cmd.Run())
		b := setup(t, cmd.Process.Pid) // exited and reaped
		start := time.Now()
		err := b.cl.waitReady(context.Background(), b.info, time.Minute)
		require.ErrorIs(t, err, errServerGone)
		require.Less(t, time.Since(start), 30*time.Second, "no waiting for a server that is gone")
	})
}
