package perf

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/procfs"
)

// RSSTargetMiB is issue 10's bound on zbworker's resident set under load.
const RSSTargetMiB = 200

// procMemory returns a process's resident set (VmRSS) and its high-water mark (VmHWM) in MiB.
func procMemory(pid int) (rss, hwm float64, err error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, 0, err
	}
	st, err := p.NewStatus()
	if err != nil {
		return 0, 0, err
	}
	return float64(st.VmRSS) / (1 << 20), float64(st.VmHWM) / (1 << 20), nil
}

// memWatch samples a process's resident set, and optionally a count (the connections it
// holds), at a fixed interval until stopped.
type memWatch struct {
	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex
	maxRSS   float64
	hwm      float64 // of the latest sample
	maxCount int
	samples  int
	err      error
}

// watchMemory samples pid every interval; count, when not nil, is sampled with it (its errors
// are ignored: a sample is skipped, not the watch).
func watchMemory(ctx context.Context, pid int, every time.Duration, count func(context.Context) (int, error)) *memWatch {
	w := &memWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			w.sample(ctx, pid, count)
			select {
			case <-ctx.Done():
				return
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *memWatch) sample(ctx context.Context, pid int, count func(context.Context) (int, error)) {
	rss, hwm, err := procMemory(pid)
	n := -1
	if count != nil {
		if c, cerr := count(ctx); cerr == nil {
			n = c
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = err
		return
	}
	w.samples++
	w.maxRSS, w.hwm = max(w.maxRSS, rss), hwm
	w.maxCount = max(w.maxCount, n)
}

// Stop ends the sampling (after one last sample) and returns the peak resident set and the
// last sample's high-water mark (VmHWM) in MiB, the largest count, the number of samples and
// the last sampling error when no sample succeeded.
func (w *memWatch) Stop(ctx context.Context, pid int, count func(context.Context) (int, error)) (rss, hwm float64, n, samples int, err error) {
	close(w.stop)
	<-w.done
	w.sample(ctx, pid, count)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.samples == 0 {
		return 0, 0, 0, 0, w.err
	}
	return w.maxRSS, w.hwm, w.maxCount, w.samples, nil
}

// extWorker is a zbworker program run as a separate process.
type extWorker struct {
	cmd    *exec.Cmd
	addr   string // host:port of its /metrics and /healthz
	stderr *tailWriter
	exited chan struct{}
	err    error // of cmd.Wait, once exited is closed
}

// startWorker starts bin (a zbworker) against url with its HTTP server on a free local port
// and waits until its /healthz answers 200.
func startWorker(ctx context.Context, bin, url string) (*extWorker, error) {
	cmd := exec.Command(bin, "--database-url", url, "--http-addr", "127.0.0.1:0", "--log-format", "json", "--log-level", "warn")
	w := &extWorker{cmd: cmd, stderr: &tailWriter{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("error starting the worker %s: %w", bin, err)
	}
	addrc := make(chan string, 1)
	go func() {
		// zbworker prints "zbworker VERSION: metrics http://ADDR/metrics, …" once it serves;
		// the rest of its standard output is drained so that it never blocks on the pipe.
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if _, rest, ok := strings.Cut(line, "metrics http://"); ok {
				if addr, _, ok := strings.Cut(rest, "/metrics"); ok {
					select {
					case addrc <- addr:
					default:
					}
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
		w.err = cmd.Wait()
		close(w.exited)
	}()
	fail := func(err error) (*extWorker, error) {
		_ = cmd.Process.Kill()
		<-w.exited
		return nil, fmt.Errorf("%w; its last output: %s", err, w.stderr.String())
	}
	select {
	case w.addr = <-addrc:
	case <-w.exited:
		err := w.err
		if err == nil {
			err = errors.New("exit status 0")
		}
		return nil, fmt.Errorf("the worker %s exited at start (%w): %s", bin, err, w.stderr.String())
	case <-time.After(time.Minute):
		return fail(fmt.Errorf("the worker %s did not report its HTTP address within a minute", bin))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, err := w.get(ctx, "/healthz", nil)
		if err == nil && code == http.StatusOK {
			return w, nil
		}
		if err == nil {
			err = fmt.Errorf("status %d", code)
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("the worker's /healthz did not answer 200 within 30 s: %w", err))
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return fail(ctx.Err())
		}
	}
}

// Pid is the worker's process id.
func (w *extWorker) Pid() int { return w.cmd.Process.Pid }

// get requests path of the worker's HTTP server and hands the body to read when it is not nil.
func (w *extWorker) get(ctx context.Context, path string, read func(io.Reader) error) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+w.addr+path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if read != nil && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, read(resp.Body)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Goroutines reads go_goroutines from the worker's /metrics.
func (w *extWorker) Goroutines(ctx context.Context) (int, error) {
	var n int
	code, err := w.get(ctx, "/metrics", func(r io.Reader) error {
		var err error
		n, err = goroutinesMetric(r)
		return err
	})
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("/metrics answered %d", code)
	}
	return n, err
}

// goroutinesMetric reads the go_goroutines gauge from a Prometheus text exposition.
func goroutinesMetric(r io.Reader) (int, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return 0, err
	}
	f := fams["go_goroutines"]
	if f == nil || len(f.GetMetric()) == 0 || f.GetMetric()[0].GetGauge() == nil {
		return 0, errors.New("no go_goroutines gauge in the metrics")
	}
	return int(f.GetMetric()[0].GetGauge().GetValue()), nil
}

// Stop sends SIGTERM and waits up to timeout for the worker to finish its jobs and exit; it
// kills the process after that. It returns "clean" for a zero exit status, else what went
// wrong.
func (w *extWorker) Stop(timeout time.Duration) string {
	select {
	case <-w.exited:
		return fmt.Sprintf("exited before the end of the test (%v): %s", w.err, w.stderr.String())
	default:
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		_ = w.cmd.Process.Kill()
		<-w.exited
		return fmt.Sprintf("SIGTERM failed (%v); killed", err)
	}
	select {
	case <-w.exited:
	case <-time.After(timeout):
		_ = w.cmd.Process.Kill()
		<-w.exited
		return fmt.Sprintf("no exit %s after SIGTERM; killed", timeout)
	}
	if w.err != nil {
		return fmt.Sprintf("%v: %s", w.err, w.stderr.String())
	}
	return "clean"
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// selfPid is this process's id (the benchmark's own resident set when the worker runs
// in-process).
var selfPid = os.Getpid()
