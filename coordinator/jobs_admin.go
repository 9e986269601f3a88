package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
)

// Job administration: the River jobs of zenbrain, through the coordinator's insert-only client.

// JobListLimitDefault is the number of jobs Jobs returns when JobListOpts.Limit is 0.
const JobListLimitDefault = 50

// JobListMax is the largest JobListOpts.Limit.
const JobListMax = 10000

// jobKinds maps short names to zenbrain's job kinds.
var jobKinds = map[string]string{
	"derive": jobs.KindDerive, "consolidate": jobs.KindConsolidate, "decay": jobs.KindDecay, "review": jobs.KindReview,
	"sleep": jobs.KindSleep, "propagate": jobs.KindPropagate, "schedule": jobs.KindSchedule, "reembed": jobs.KindReembed,
	"vacuum": jobs.KindVacuum,
}

// JobKinds returns the short job kind names Jobs accepts (derive, decay, ...), sorted.
func JobKinds() []string {
	out := make([]string, 0, len(jobKinds))
	for k := range jobKinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// JobStates returns River's job states, in their lifecycle order.
func JobStates() []string {
	return []string{
		string(rivertype.JobStateAvailable), string(rivertype.JobStateScheduled), string(rivertype.JobStatePending),
		string(rivertype.JobStateRunning), string(rivertype.JobStateRetryable), string(rivertype.JobStateCompleted),
		string(rivertype.JobStateCancelled), string(rivertype.JobStateDiscarded),
	}
}

// Job is one River job.
type Job struct {
	ID    int64  `json:"id"`
	Kind  string `json:"kind"`
	Queue string `json:"queue"`
	State string `json:"state"`
	// Tenant is the args' tenant_id ("" for jobs of no tenant, e.g. schedules).
	Tenant      string          `json:"tenant,omitempty"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	CreatedAt   time.Time       `json:"created_at"`
	ScheduledAt time.Time       `json:"scheduled_at"`
	AttemptedAt *time.Time      `json:"attempted_at,omitempty"`
	FinalizedAt *time.Time      `json:"finalized_at,omitempty"`
	Args        json.RawMessage `json:"args"`
	// LastError is the error of the latest failed attempt, if any.
	LastError string `json:"last_error,omitempty"`
}

func jobOf(r *rivertype.JobRow) Job {
	j := Job{
		ID: r.ID, Kind: r.Kind, Queue: r.Queue, State: string(r.State), Attempt: r.Attempt, MaxAttempts: r.MaxAttempts,
		CreatedAt: r.CreatedAt, ScheduledAt: r.ScheduledAt, AttemptedAt: r.AttemptedAt, FinalizedAt: r.FinalizedAt,
		Args: json.RawMessage(r.EncodedArgs),
	}
	var a struct {
		TenantID string `json:"tenant_id"`
	}
	if json.Unmarshal(r.EncodedArgs, &a) == nil {
		j.Tenant = a.TenantID
	}
	if n := len(r.Errors); n > 0 {
		j.LastError = r.Errors[n-1].Error
	}
	return j
}

// JobListOpts filter Jobs; nil means the JobListLimitDefault newest jobs.
type JobListOpts struct {
	// States keeps jobs in these River states (available, scheduled, pending, running,
	// retryable, completed, cancelled, discarded). Empty means all.
	States []string
	// Kinds keeps jobs of these kinds: short names (derive, decay, review, sleep, consolidate,
	// propagate, schedule, reembed) or River kinds (zb_derive, ...). Empty means all.
	Kinds []string
	// Tenant keeps jobs whose args name this tenant. Empty means all.
	Tenant string
	// Limit is the number of jobs, in [1, JobListMax]. 0 means JobListLimitDefault.
	Limit int
}

// Jobs returns River jobs, newest first, filtered by opts.
func (c *Coordinator) Jobs(ctx context.Context, opts *JobListOpts) ([]Job, error) {
	if opts == nil {
		opts = &JobListOpts{}
	}
	limit := opts.Limit
	if limit == 0 {
		limit = JobListLimitDefault
	}
	if limit < 1 || limit > JobListMax {
		return nil, fmt.Errorf("%w: limit must be in [1, %d], got %d", ErrInvalidInput, JobListMax, limit)
	}
	p := river.NewJobListParams().OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(limit)
	if len(opts.States) > 0 {
		var states []rivertype.JobState
		for _, s := range opts.States {
			if !slices.Contains(JobStates(), s) {
				return nil, fmt.Errorf("%w: unknown job state %q (want one of %s)", ErrInvalidInput, truncate(s, 40), strings.Join(JobStates(), ", "))
			}
			states = append(states, rivertype.JobState(s))
		}
		p = p.States(states...)
	}
	if len(opts.Kinds) > 0 {
		var kinds []string
		for _, k := range opts.Kinds {
			kind, ok := jobKinds[k]
			if !ok {
				for _, v := range jobKinds {
					if v == k {
						kind, ok = v, true
					}
				}
			}
			if !ok {
				return nil, fmt.Errorf("%w: unknown job kind %q (want one of %s)", ErrInvalidInput, truncate(k, 40), strings.Join(JobKinds(), ", "))
			}
			kinds = append(kinds, kind)
		}
		p = p.Kinds(kinds...)
	}
	if opts.Tenant != "" {
		if err := checkTenant(opts.Tenant); err != nil {
			return nil, err
		}
		p = p.Where("args ->> 'tenant_id' = @tenant", river.NamedArgs{"tenant": opts.Tenant})
	}
	// With a tenant the list runs in a transaction bound to it, so an application role (which
	// row-level security confines to its tenant's jobs) sees them too.
	var res *river.JobListResult
	err := c.beginTenant(ctx, opts.Tenant, func(tx pgx.Tx) error {
		var err error
		res, err = c.river.JobListTx(ctx, tx, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("error listing jobs: %w", err)
	}
	out := make([]Job, 0, len(res.Jobs))
	for _, r := range res.Jobs {
		out = append(out, jobOf(r))
	}
	return out, nil
}

func riverErr(op string, id int64, err error) error {
	if errors.Is(err, rivertype.ErrNotFound) {
		return fmt.Errorf("error %s job %d: %w", op, id, ErrNotFound)
	}
	return fmt.Errorf("error %s job %d: %w", op, id, err)
}

// RetryJob makes job id available to run again at once (a discarded or cancelled job too;
// River raises its max attempts when they are exhausted). A running job is left as it is. An
// unknown job gives ErrNotFound.
func (c *Coordinator) RetryJob(ctx context.Context, id int64) (*Job, error) {
	if id <= 0 {
		return nil, fmt.Errorf("%w: job id must be positive, got %d", ErrInvalidInput, id)
	}
	r, err := c.river.JobRetry(ctx, id)
	if err != nil {
		return nil, riverErr("retrying", id, err)
	}
	j := jobOf(r)
	return &j, nil
}

// CancelJob cancels job id: a waiting job is cancelled at once, a running one is asked to stop
// (its worker's context is cancelled), a finished one is left as it is. An unknown job gives
// ErrNotFound.
func (c *Coordinator) CancelJob(ctx context.Context, id int64) (*Job, error) {
	if id <= 0 {
		return nil, fmt.Errorf("%w: job id must be positive, got %d", ErrInvalidInput, id)
	}
	r, err := c.river.JobCancel(ctx, id)
	if err != nil {
		return nil, riverErr("cancelling", id, err)
	}
	j := jobOf(r)
	return &j, nil
}

// Lifecycle tasks of EnqueueLifecycle.
const (
	// TaskDecay runs the decay of faded memories (jobs.DecayArgs).
	TaskDecay = jobs.TaskDecay
	// TaskReview runs the due FSRS reviews (jobs.ReviewArgs).
	TaskReview = jobs.TaskReview
	// TaskSleep runs a Simulation-Selection sleep (jobs.SleepArgs, trigger manual).
	TaskSleep = jobs.TaskSleep
)

// EnqueuedJob is a job EnqueueLifecycle inserted (or found waiting).
type EnqueuedJob struct {
	ID     int64  `json:"id"`
	Kind   string `json:"kind"`
	Tenant string `json:"tenant"`
	// Duplicate reports that the same job was already waiting or running, so none was added.
	Duplicate bool `json:"duplicate"`
}

// EnqueueLifecycle enqueues task (TaskDecay, TaskReview or TaskSleep) now for each tenant, or
// for every tenant when tenants is empty (an unknown tenant gives ErrNotFound), on the lifecycle
// queue, unique by arguments (a job already waiting for the tenant is reported as a duplicate).
// A worker runs them.
func (c *Coordinator) EnqueueLifecycle(ctx context.Context, task string, tenants []string) ([]EnqueuedJob, error) {
	switch task {
	case TaskDecay, TaskReview, TaskSleep:
	default:
		return nil, fmt.Errorf("%w: unknown task %q (want decay, review or sleep)", ErrInvalidInput, truncate(task, 40))
	}
	for _, t := range tenants {
		if err := checkTenant(t); err != nil {
			return nil, err
		}
		if _, err := tenantRead(ctx, c, t, func(q *db.Queries) (db.ZbTenant, error) { return q.TenantGetByID(ctx, t) }); err != nil {
			return nil, interpretError(fmt.Sprintf("finding tenant %s", t), err)
		}
	}
	if len(tenants) == 0 {
		all, err := c.Tenants(ctx)
		if err != nil {
			return nil, err
		}
		tenants = all
	}
	out := make([]EnqueuedJob, 0, len(tenants))
	for _, t := range tenants {
		var args river.JobArgs
		switch task {
		case TaskDecay:
			args = jobs.DecayArgs{TenantID: t}
		case TaskReview:
			args = jobs.ReviewArgs{TenantID: t}
		default:
			args = jobs.SleepArgs{TenantID: t, Trigger: "manual"}
		}
		var res *rivertype.JobInsertResult
		err := c.beginTenant(ctx, t, func(tx pgx.Tx) error {
			var err error
			res, err = c.river.InsertTx(ctx, tx, args, jobs.LifecycleInsertOpts())
			return err
		})
		if err != nil {
			return out, fmt.Errorf("error enqueuing %s for tenant %s: %w", task, t, err)
		}
		out = append(out, EnqueuedJob{ID: res.Job.ID, Kind: res.Job.Kind, Tenant: t, Duplicate: res.UniqueSkippedAsDuplicate})
	}
	return out, nil
}
