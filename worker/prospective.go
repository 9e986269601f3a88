package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// KindProspectiveTick is the kind of ProspectiveTickArgs: a stable identifier stored with every
// queued job; never change it.
const KindProspectiveTick = "zb_prospective_tick"

// ProspectiveTickInterval is the default of Config.ProspectiveInterval, how often the periodic
// prospective_tick runs (and once at start): a time intention fires at most this long after it
// is due.
const ProspectiveTickInterval = time.Minute

// ProspectiveTickArgs is the periodic job that fires the due time intentions of every tenant
// with prospective memory on and expires the pending intentions whose expiry has come
// (coordinator.ProspectiveTick).
type ProspectiveTickArgs struct {
	// Limit bounds the intentions fired (and expired) by one run; 0 means
	// coordinator.ProspectiveTickLimitDefault.
	Limit int `json:"limit,omitempty"`
}

// Kind returns KindProspectiveTick.
func (ProspectiveTickArgs) Kind() string { return KindProspectiveTick }

type prospectiveWorker struct {
	river.WorkerDefaults[ProspectiveTickArgs]
	w *Worker
}

func (p *prospectiveWorker) Work(ctx context.Context, job *river.Job[ProspectiveTickArgs]) error {
	rep, err := p.w.cfg.Coordinator.ProspectiveTick(ctx, job.Args.Limit, complete(job))
	if err != nil {
		return permanent(fmt.Errorf("error running the prospective tick: %w", err))
	}
	if len(rep.Fired) > 0 || rep.Expired > 0 || rep.More {
		p.w.cfg.Logger.Info("prospective tick", "fired", len(rep.Fired), "expired", rep.Expired, "more", rep.More)
	}
	return nil
}

// InsertProspectiveTick enqueues a prospective tick now (unique: a tick already waiting or
// running absorbs it).
func (w *Worker) InsertProspectiveTick(ctx context.Context) (*rivertype.JobInsertResult, error) {
	return w.client.Insert(ctx, ProspectiveTickArgs{}, lifecycleOpts())
}
