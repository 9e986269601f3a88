package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// vacuumWorker completes the vacuum requests erases queued (coordinator.VacuumErased): VACUUM
// (ANALYZE) over zenbrain's tables, then the requests marked done in the transaction that
// completes the job.
type vacuumWorker struct {
	river.WorkerDefaults[jobs.VacuumArgs]
	w *Worker
}

// VacuumJobTimeout is the timeout of the vacuum job, in place of Config.JobTimeout: VACUUM of a
// large table (its HNSW index above all) may run longer, and a run cut short would start over
// from the first table. It is finite on purpose: River never rescues a running job without a
// timeout, so a vacuum job whose worker died would stay running for ever and, unique while
// running, keep the schedule from queueing another. River rescues it this long after it started.
const VacuumJobTimeout = 6 * time.Hour

// Timeout is VacuumJobTimeout. Stopping the worker still cancels the job, and the advisory lock
// of VacuumErased keeps a second run (a job River rescued meanwhile) from vacuuming at the same
// time.
func (v *vacuumWorker) Timeout(*river.Job[jobs.VacuumArgs]) time.Duration { return VacuumJobTimeout }

func (v *vacuumWorker) Work(ctx context.Context, job *river.Job[jobs.VacuumArgs]) error {
	rep, err := v.w.cfg.Coordinator.VacuumErased(ctx, &coordinator.VacuumOpts{Hook: complete(job)})
	if errors.Is(err, coordinator.ErrVacuumPrivilege) {
		// Retrying cannot help: the requests stay pending for a run as a role that may vacuum
		// (zbctl vacuum), and the next scheduled job asks again.
		v.w.cfg.Logger.Warn("vacuum after erases skipped: this worker's role may not vacuum zenbrain's tables", "error", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("error vacuuming after erases: %w", err)
	}
	if len(rep.Requests) > 0 {
		v.w.cfg.Logger.Info("vacuumed after erases", "requests", rep.Requests, "tables", len(rep.Tables), "elapsed", rep.Elapsed)
	}
	return nil
}

// InsertVacuum enqueues a vacuum run now (unique: a run already waiting or running absorbs it).
func (w *Worker) InsertVacuum(ctx context.Context) (*rivertype.JobInsertResult, error) {
	return w.client.Insert(ctx, jobs.VacuumArgs{}, lifecycleOpts())
}
