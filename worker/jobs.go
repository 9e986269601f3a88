package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// complete returns the hook that completes job inside the entry point's transaction, so the
// job's effects and its completion commit together (or not at all).
func complete[T river.JobArgs](job *river.Job[T]) coordinator.TxHook {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		if err != nil {
			return fmt.Errorf("error completing job %d: %w", job.ID, err)
		}
		return nil
	}
}

// permanent turns errors that no retry can fix (bad arguments, a vanished tenant or session)
// into a cancellation with the reason; anything else is returned for River to retry with
// backoff.
func permanent(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, coordinator.ErrInvalidInput) || errors.Is(err, coordinator.ErrNotFound) {
		return river.JobCancel(err)
	}
	return err
}

type deriveWorker struct {
	river.WorkerDefaults[jobs.DeriveArgs]
	w *Worker
}

func (d *deriveWorker) Work(ctx context.Context, job *river.Job[jobs.DeriveArgs]) error {
	rep, err := d.w.cfg.Coordinator.Derive(ctx, job.Args, complete(job))
	if err != nil {
		return permanent(fmt.Errorf("error deriving memories of tenant %s: %w", job.Args.TenantID, err))
	}
	d.w.cfg.Logger.Debug("derived", "tenant", job.Args.TenantID, "report", rep)
	if rep.More {
		// One call derives at most DeriveMaxPerCall memories: queue the rest now rather than
		// waiting for the sweep. (If this insert is lost in a crash, the sweep finds them.)
		next := jobs.DeriveArgs{TenantID: job.Args.TenantID, Pending: true, RecheckSupersede: job.Args.RecheckSupersede}
		if _, err := d.w.client.Insert(ctx, next, deriveOpts()); err != nil {
			d.w.cfg.Logger.Warn("error queueing the rest of a derivation", "tenant", job.Args.TenantID, "error", err)
		}
	}
	return nil
}

type decayWorker struct {
	river.WorkerDefaults[jobs.DecayArgs]
	w *Worker
}

func (d *decayWorker) Work(ctx context.Context, job *river.Job[jobs.DecayArgs]) error {
	limit := job.Args.Limit
	if limit <= 0 {
		limit = d.w.cfg.BatchLimit
	}
	_, err := d.w.cfg.Coordinator.DecayDue(ctx, job.Args.TenantID, limit, complete(job))
	return permanent(wrap("decaying", job.Args.TenantID, err))
}

type reviewWorker struct {
	river.WorkerDefaults[jobs.ReviewArgs]
	w *Worker
}

func (r *reviewWorker) Work(ctx context.Context, job *river.Job[jobs.ReviewArgs]) error {
	limit := job.Args.Limit
	if limit <= 0 {
		limit = r.w.cfg.BatchLimit
	}
	_, err := r.w.cfg.Coordinator.ReviewDue(ctx, job.Args.TenantID, limit, complete(job))
	return permanent(wrap("reviewing", job.Args.TenantID, err))
}

type sleepWorker struct {
	river.WorkerDefaults[jobs.SleepArgs]
	w *Worker
}

func (s *sleepWorker) Work(ctx context.Context, job *river.Job[jobs.SleepArgs]) error {
	_, err := s.w.cfg.Coordinator.Sleep(ctx, job.Args.TenantID,
		&coordinator.SleepOpts{Trigger: job.Args.Trigger, Seed: job.Args.Seed, Round: job.Args.Round}, complete(job))
	return permanent(wrap("sleeping", job.Args.TenantID, err))
}

type consolidateWorker struct {
	river.WorkerDefaults[jobs.ConsolidateArgs]
	w *Worker
}

func (c *consolidateWorker) Work(ctx context.Context, job *river.Job[jobs.ConsolidateArgs]) error {
	id, err := uuid.Parse(job.Args.SessionID)
	if err != nil {
		return river.JobCancel(fmt.Errorf("session id %q is not a UUID: %w", job.Args.SessionID, err))
	}
	_, err = c.w.cfg.Coordinator.Consolidate(ctx, job.Args.TenantID, id, complete(job))
	return permanent(wrap("consolidating session "+job.Args.SessionID+" of", job.Args.TenantID, err))
}

type propagateWorker struct {
	river.WorkerDefaults[jobs.PropagateArgs]
	w *Worker
}

func (p *propagateWorker) Work(ctx context.Context, job *river.Job[jobs.PropagateArgs]) error {
	_, err := p.w.cfg.Coordinator.Propagate(ctx, job.Args.TenantID, job.Args.MemoryIDs, complete(job))
	return permanent(wrap("propagating confidence of", job.Args.TenantID, err))
}

// scheduleWorker fans a periodic task out into per-tenant jobs, inserted in the transaction
// that completes the schedule job.
type scheduleWorker struct {
	river.WorkerDefaults[jobs.ScheduleArgs]
	w *Worker
}

func (s *scheduleWorker) Work(ctx context.Context, job *river.Job[jobs.ScheduleArgs]) error {
	co := s.w.cfg.Coordinator
	var args []river.InsertManyParams
	switch job.Args.Task {
	case jobs.TaskDecay, jobs.TaskReview, jobs.TaskSleep:
		tenants, err := co.Tenants(ctx)
		if err != nil {
			return fmt.Errorf("error listing tenants: %w", err)
		}
		for _, t := range tenants {
			var a river.JobArgs
			switch job.Args.Task {
			case jobs.TaskDecay:
				a = jobs.DecayArgs{TenantID: t}
			case jobs.TaskReview:
				a = jobs.ReviewArgs{TenantID: t}
			default:
				a = jobs.SleepArgs{TenantID: t, Trigger: "schedule"}
			}
			args = append(args, river.InsertManyParams{Args: a, InsertOpts: lifecycleOpts()})
		}
	case jobs.TaskSweep:
		tenants, err := co.UnderivedTenants(ctx, 1000)
		if err != nil {
			return fmt.Errorf("error listing tenants with underived memories: %w", err)
		}
		for _, t := range tenants {
			args = append(args, river.InsertManyParams{Args: jobs.DeriveArgs{TenantID: t, Pending: true}, InsertOpts: deriveOpts()})
		}
	case jobs.TaskIdleSessions:
		sessions, err := co.IdleSessions(ctx, s.w.cfg.SessionIdle, 1000)
		if err != nil {
			return fmt.Errorf("error listing idle sessions: %w", err)
		}
		for _, se := range sessions {
			args = append(args, river.InsertManyParams{
				Args:       jobs.ConsolidateArgs{TenantID: se.TenantID, SessionID: se.ID.String()},
				InsertOpts: lifecycleOpts(),
			})
		}
	default:
		return river.JobCancel(fmt.Errorf("unknown scheduled task %q", job.Args.Task))
	}
	tx, err := s.w.cfg.Pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("error starting transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if len(args) > 0 {
		if _, err := s.w.client.InsertManyTx(ctx, tx, args); err != nil {
			return fmt.Errorf("error enqueueing %s jobs: %w", job.Args.Task, err)
		}
	}
	if err := complete(job)(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("error committing %s schedule: %w", job.Args.Task, err)
	}
	return nil
}

func wrap(op, tenant string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("error %s tenant %s: %w", op, tenant, err)
}

// ReembedSnooze is how long a re-embedding job waits when this worker's embedder does not
// produce the job's model (another worker, or this one restarted with the new model, takes it).
const ReembedSnooze = time.Minute

type reembedWorker struct {
	river.WorkerDefaults[jobs.ReembedArgs]
	w *Worker
}

func (r *reembedWorker) Work(ctx context.Context, job *river.Job[jobs.ReembedArgs]) error {
	rep, err := r.w.cfg.Coordinator.Reembed(ctx, job.Args, complete(job))
	if errors.Is(err, coordinator.ErrModelMismatch) {
		r.w.cfg.Logger.Warn("re-embedding job needs another embedding model; snoozing", "job", job.ID, "error", err)
		return river.JobSnooze(ReembedSnooze)
	}
	if err != nil {
		return permanent(wrap("re-embedding memories of", job.Args.TenantID, err))
	}
	r.w.cfg.Logger.Debug("re-embedded", "tenant", job.Args.TenantID, "report", rep)
	return nil
}
