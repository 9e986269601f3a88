package coordinator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/zenbrain/zb/db"
)

// Physical cleanup after erases. An erase removes content logically, in one transaction; the
// old row versions that still hold it stay in the heap and the indexes until VACUUM reclaims
// them, and the planner statistics (pg_statistic) keep sampled values, most common values
// included, until ANALYZE replaces them. Every erase that removed something therefore queues a
// request in zb.vacuum_request (one pending request serves a burst of erases; EraseReport.
// VacuumRequest), and VacuumErased runs VACUUM (ANALYZE) over zenbrain's tables to complete the
// pending requests. VACUUM cannot run inside a transaction, and only a table's owner, the
// database's owner or a superuser may vacuum and analyze it, so VacuumErased runs outside the
// erase: the worker's vacuum job every minute, or an operator with 'zbctl vacuum'.

// Limits of VacuumRequests.
const (
	// VacuumRequestListDefault is the number of requests VacuumRequests returns when the caller
	// passes 0.
	VacuumRequestListDefault = 20
	// VacuumRequestListMax is the largest limit VacuumRequests accepts.
	VacuumRequestListMax = 10000
)

// VacuumClaimLockTimeout bounds how long VacuumErased waits for the erases in flight before it
// claims the pending requests; past it the run fails with ErrConflict (retryable) and claims
// nothing.
const VacuumClaimLockTimeout = 10 * time.Second

// ErrVacuumPrivilege is returned, as a *VacuumPrivilegeError, by VacuumErased when the
// connecting role may not vacuum and analyze every table a run covers. It wraps ErrForbidden.
var ErrVacuumPrivilege = fmt.Errorf("%w: the role may not vacuum zenbrain's tables", ErrForbidden)

// VacuumPrivilegeError is VacuumErased's error when the connecting role may not vacuum and
// analyze every table a run covers: PostgreSQL allows that to a table's owner, the database's
// owner and superusers only (VACUUM by anyone else skips the table with a warning). The run
// vacuumed nothing and left the requests pending. It matches ErrVacuumPrivilege and
// ErrForbidden with errors.Is.
type VacuumPrivilegeError struct {
	// Role is the connecting role (current_user).
	Role string
	// Tables are the tables the role may not vacuum, schema-qualified, in run order.
	Tables []string
	// Owners are the owners of those tables, sorted.
	Owners []string
	// Requests are the pending requests, ascending.
	Requests []int64
}

// Error says which role may not vacuum which tables and what to do about it.
func (e *VacuumPrivilegeError) Error() string {
	tables := strings.Join(e.Tables[:min(3, len(e.Tables))], ", ")
	if len(e.Tables) > 3 {
		tables += fmt.Sprintf(" and %d more", len(e.Tables)-3)
	}
	return fmt.Sprintf("role %s may not vacuum %s (owned by %s): run 'zbctl vacuum' as the tables' owner or a "+
		"superuser; vacuum requests %s stay pending", e.Role, tables, strings.Join(e.Owners, ", "), joinIDs(e.Requests))
}

// Unwrap returns ErrVacuumPrivilege.
func (e *VacuumPrivilegeError) Unwrap() error { return ErrVacuumPrivilege }

// VacuumOpts are the options of VacuumErased; nil means the defaults.
type VacuumOpts struct {
	// Hook runs in the transaction that records the run's outcome: the one that marks the
	// claimed requests done, or, when nothing was pending or another run held the lock, a
	// transaction of its own. The worker passes river.JobCompleteTx. It does not run when
	// VacuumErased returns an error.
	Hook TxHook
	// Full rewrites every table (VACUUM (FULL, ANALYZE)) instead of vacuuming it in place, even
	// when no request is pending: the freed space inside pages, which plain VACUUM leaves as it
	// was, then holds no erased bytes either. Each table is locked against reads and writes
	// (ACCESS EXCLUSIVE) while it is rewritten — a maintenance window's job. Defaults to false.
	Full bool
}

// VacuumReport says what one VacuumErased run did.
type VacuumReport struct {
	// Busy reports that another run (a worker's vacuum job or 'zbctl vacuum') held the vacuum
	// lock: this run did nothing.
	Busy bool `json:"busy,omitempty"`
	// Requests are the ids of the requests the run completed, ascending; empty when none was
	// pending.
	Requests []int64 `json:"requests"`
	// Tables are the tables vacuumed and analyzed, schema-qualified (e.g. "zb.memory"), in the
	// order they ran.
	Tables []string `json:"tables"`
	// Elapsed is how long the VACUUM statements took.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// VacuumRequest is one request to vacuum and analyze zenbrain's tables, queued by an erase.
type VacuumRequest struct {
	// ID identifies the request; EraseReport.VacuumRequest names it.
	ID int64 `json:"id"`
	// State is "pending" (not started), "started" (claimed by a run that is working, or that
	// was interrupted: the next run takes it again) or "done".
	State string `json:"state"`
	// RequestedAt is when the first erase it serves queued it.
	RequestedAt time.Time `json:"requested_at"`
	// StartedAt is when a run claimed it (nil while pending).
	StartedAt *time.Time `json:"started_at,omitempty"`
	// DoneAt is when the run that claimed it had vacuumed and analyzed every table (nil until
	// then).
	DoneAt *time.Time `json:"done_at,omitempty"`
	// Tables is the number of tables that run vacuumed (0 until done).
	Tables int `json:"tables"`
}

// Vacuum request states (VacuumRequest.State).
const (
	VacuumStatePending = "pending"
	VacuumStateStarted = "started"
	VacuumStateDone    = "done"
)

func vacuumRequestFromRow(r db.ZbVacuumRequest) VacuumRequest {
	out := VacuumRequest{ID: r.ID, State: VacuumStatePending, RequestedAt: r.RequestedAt, StartedAt: r.StartedAt, DoneAt: r.DoneAt}
	switch {
	case r.DoneAt != nil:
		out.State = VacuumStateDone
	case r.StartedAt != nil:
		out.State = VacuumStateStarted
	}
	if r.Tables != nil {
		out.Tables = int(*r.Tables)
	}
	return out
}

// VacuumRequests returns the latest limit vacuum requests (0: VacuumRequestListDefault, at most
// VacuumRequestListMax), newest first: whether the physical cleanup after erases has run
// ('zbctl vacuum --status').
func (c *Coordinator) VacuumRequests(ctx context.Context, limit int) ([]VacuumRequest, error) {
	if limit == 0 {
		limit = VacuumRequestListDefault
	}
	if limit < 0 || limit > VacuumRequestListMax {
		return nil, fmt.Errorf("%w: limit must be in [0, %d], got %d", ErrInvalidInput, VacuumRequestListMax, limit)
	}
	rows, err := c.q.VacuumRequestList(ctx, int32(limit))
	if err != nil {
		return nil, interpretError("listing vacuum requests", governanceError(err))
	}
	out := make([]VacuumRequest, len(rows))
	for i, r := range rows {
		out[i] = vacuumRequestFromRow(r)
	}
	return out, nil
}

// VacuumErased completes the pending vacuum requests that erases queued: it runs
// VACUUM (ANALYZE) over every ordinary table of schema zb and River's job table, one statement
// per table, so that the erased content's dead row versions are reclaimed and the planner
// statistics (pg_statistic) are sampled anew from what is left, then marks the requests done.
//
// A run holds a session-level advisory lock on a connection of its own: while another run holds
// it, VacuumErased does nothing and reports Busy. It waits for the erases in flight to commit
// (at most VacuumClaimLockTimeout, then ErrConflict), claims every request not done (started_at;
// an erase during the run queues a new request, which the next run serves) and, when there was
// none, returns at once (with VacuumOpts.Full it rewrites every table all the same). The connecting role must be allowed to vacuum and analyze every table
// (their owner, the database's owner or a superuser): otherwise nothing is vacuumed, the
// requests return to pending and the error is a *VacuumPrivilegeError (ErrVacuumPrivilege,
// ErrForbidden). Any other failure returns the requests to pending as well.
//
// A run reads every table it vacuums once, under the lock VACUUM takes (SHARE UPDATE EXCLUSIVE),
// which reads and writes do not wait for; only the claim locks zb.vacuum_request exclusively, for
// a moment, and erases finishing meanwhile wait for it.
func (c *Coordinator) VacuumErased(ctx context.Context, opts *VacuumOpts) (*VacuumReport, error) {
	if opts == nil {
		opts = &VacuumOpts{}
	}
	rep := &VacuumReport{Requests: []int64{}, Tables: []string{}}
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return nil, interpretError("acquiring a connection for vacuum", err)
	}
	defer conn.Release()
	q := db.New(conn)
	locked, err := q.VacuumLockTry(ctx)
	if err != nil {
		return nil, interpretError("taking the vacuum lock", err)
	}
	if !locked {
		rep.Busy = true
		return c.vacuumNothing(ctx, rep, opts.Hook)
	}
	defer func() {
		// A connection whose lock may still be held does not go back to the pool: closing it
		// ends the session, and the lock with it.
		if unlocked, err := q.VacuumUnlock(context.WithoutCancel(ctx)); err != nil || !unlocked {
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()

	// The claim waits for the erases in flight (VacuumRequestLockTable): an erase reuses a pending
	// request before it commits, and VACUUM cannot remove the row versions of a transaction
	// still running, so a request is claimed only once its erases have committed.
	var claimed []int64
	err = c.beginTenantOn(ctx, conn, "", func(tx pgx.Tx) error {
		qtx := c.q.WithTx(tx)
		if err := qtx.VacuumRequestLockTimeoutSet(ctx, fmt.Sprintf("%dms", VacuumClaimLockTimeout.Milliseconds())); err != nil {
			return err
		}
		if err := qtx.VacuumRequestLockTable(ctx); err != nil {
			return err
		}
		claimed, err = qtx.VacuumRequestClaim(ctx)
		return err
	})
	if err != nil {
		return nil, interpretError("claiming vacuum requests", err)
	}
	if len(claimed) == 0 && !opts.Full {
		return c.vacuumNothing(ctx, rep, opts.Hook)
	}
	slices.Sort(claimed)
	release := func(cause error) error {
		if _, err := q.VacuumRequestRelease(context.WithoutCancel(ctx), claimed); err != nil {
			return errors.Join(cause, interpretError("returning vacuum requests "+joinIDs(claimed)+" to pending", err))
		}
		return cause
	}

	targets, err := q.VacuumTargetList(ctx)
	if err != nil {
		return nil, release(interpretError("listing the tables to vacuum", err))
	}
	var refused *VacuumPrivilegeError
	for _, t := range targets {
		if t.MayVacuum {
			continue
		}
		if refused == nil {
			refused = &VacuumPrivilegeError{Role: t.RoleName, Requests: claimed}
		}
		refused.Tables = append(refused.Tables, t.SchemaName+"."+t.TableName)
		if !slices.Contains(refused.Owners, t.Owner) {
			refused.Owners = append(refused.Owners, t.Owner)
		}
	}
	if refused != nil {
		slices.Sort(refused.Owners)
		return nil, release(fmt.Errorf("error vacuuming after erases: %w", refused))
	}

	began := time.Now()
	for _, t := range targets {
		// An admin statement, the one kind of SQL not in sql/queries: VACUUM takes no
		// parameters and cannot run in a transaction. The identifiers come from the catalog.
		stmt := "VACUUM (ANALYZE) "
		if opts.Full {
			stmt = "VACUUM (FULL, ANALYZE) "
		}
		_, err := conn.Exec(ctx, stmt+pgx.Identifier{t.SchemaName, t.TableName}.Sanitize())
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == pgerrcode.UndefinedTable {
			continue // dropped since it was listed: nothing of it is left to clean
		}
		if err != nil {
			return nil, release(interpretError("vacuuming "+t.SchemaName+"."+t.TableName, err))
		}
		rep.Tables = append(rep.Tables, t.SchemaName+"."+t.TableName)
	}
	rep.Elapsed = time.Since(began)

	err = c.beginTenantOn(ctx, conn, "", func(tx pgx.Tx) error {
		if _, err := c.q.WithTx(tx).VacuumRequestDone(ctx, db.VacuumRequestDoneParams{Ids: claimed, Tables: int32(len(rep.Tables))}); err != nil {
			return err
		}
		if opts.Hook != nil {
			if err := opts.Hook(ctx, tx); err != nil {
				return fmt.Errorf("error in transaction hook: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, release(interpretError("marking vacuum requests "+joinIDs(claimed)+" done", err))
	}
	if claimed != nil {
		rep.Requests = claimed
	}
	return rep, nil
}

// vacuumNothing ends a run that had nothing to do: it runs hook in a transaction of its own and
// returns rep.
func (c *Coordinator) vacuumNothing(ctx context.Context, rep *VacuumReport, hook TxHook) (*VacuumReport, error) {
	if hook == nil {
		return rep, nil
	}
	err := c.beginTenantOn(ctx, c.pool, "", func(tx pgx.Tx) error {
		if err := hook(ctx, tx); err != nil {
			return fmt.Errorf("error in transaction hook: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("completing the vacuum run", err)
	}
	return rep, nil
}

// joinIDs formats ids as "3, 4".
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}
