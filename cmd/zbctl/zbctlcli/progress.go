package zbctlcli

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr, shown only when stderr is a terminal. The zero value
// and a nil *progress are silent.
type progress struct {
	bar *progressbar.ProgressBar
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a bar of total units described by desc on stderr when it is a terminal,
// else a silent one. bytes formats the units as bytes.
func (a *app) newProgress(total int64, desc string, bytes bool) *progress {
	if !isTerminal(a.stderr) || total <= 0 {
		return &progress{}
	}
	w := a.stderr
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionOnCompletion(func() { _, _ = io.WriteString(w, "\n") }),
	}
	if bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount())
	}
	return &progress{bar: progressbar.NewOptions64(total, opts...)}
}

// set moves the bar to done.
func (p *progress) set(done int64) {
	if p == nil || p.bar == nil {
		return
	}
	_ = p.bar.Set64(done)
}

// finish completes the bar.
func (p *progress) finish() {
	if p == nil || p.bar == nil {
		return
	}
	_ = p.bar.Finish()
}
