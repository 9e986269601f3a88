package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Errors returned (wrapped) by the coordinator. Match them with errors.Is. Every input error
// wraps ErrInvalidInput as well as its specific sentinel, and nothing is written when one is
// returned.
var (
	// ErrInvalidInput is wrapped by every error about the caller's input.
	ErrInvalidInput = errors.New("invalid input")
	// ErrNotFound is returned when a tenant, memory or session does not exist.
	ErrNotFound = errors.New("not found")
	// ErrEmptyContent is returned for content (or a query) that is empty or only white space.
	ErrEmptyContent = fmt.Errorf("%w: empty content", ErrInvalidInput)
	// ErrContentTooLarge is returned for content above Config.MaxContentBytes, and for content
	// within it that exceeds a PostgreSQL limit (SQLSTATE class 54: a text-search vector above
	// 1 MB, which about 1 MiB of pairwise distinct words produces).
	ErrContentTooLarge = fmt.Errorf("%w: content too large", ErrInvalidInput)
	// ErrInvalidUTF8 is returned for text that is not valid UTF-8 or contains NUL bytes
	// (PostgreSQL text cannot hold NUL).
	ErrInvalidUTF8 = fmt.Errorf("%w: text is not valid UTF-8 without NUL bytes", ErrInvalidInput)
	// ErrUnknownLayer is returned for a layer that is not one of the seven.
	ErrUnknownLayer = fmt.Errorf("%w: unknown layer", ErrInvalidInput)
	// ErrInvalidTenant is returned for a tenant id that does not match
	// ^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$.
	ErrInvalidTenant = fmt.Errorf("%w: invalid tenant id", ErrInvalidInput)
	// ErrDimensionMismatch is returned for an embedding whose length is not the install's
	// embedding dimension.
	ErrDimensionMismatch = fmt.Errorf("%w: embedding dimension mismatch", ErrInvalidInput)
	// ErrInvalidEmbedding is returned for an embedding with NaN or infinite values, or all zeros.
	ErrInvalidEmbedding = fmt.Errorf("%w: embedding has NaN, infinite or only zero values", ErrInvalidInput)
	// ErrInvalidK is returned for k ≤ 0 or k > MaxK.
	ErrInvalidK = fmt.Errorf("%w: k must be in [1, %d]", ErrInvalidInput, MaxK)
	// ErrConflict is returned when a write collides with a concurrent one (a unique key, a
	// serialization failure, a deadlock or a lock timeout); retrying may succeed (IsRetryable).
	ErrConflict = errors.New("conflict with a concurrent write")
	// ErrDuplicate is returned when a memory with the same ExternalID already exists for the
	// tenant. It wraps ErrConflict, but retrying cannot succeed (IsRetryable reports false): the
	// memory is already stored, e.g. by an earlier attempt whose commit reply was lost.
	ErrDuplicate = fmt.Errorf("%w: a memory with this external id already exists", ErrConflict)
	// ErrUnavailable is returned when the database cannot serve the operation for now: the
	// connection was lost or refused, the server is shutting down, restarting or out of
	// resources (disk full, out of memory, too many connections). The operation's transaction
	// did not commit, except when the connection broke during COMMIT itself (then the outcome is
	// unknown: store with an ExternalID to make the retry safe). Retrying may succeed
	// (IsRetryable).
	ErrUnavailable = errors.New("database unavailable")
	// ErrTimeout is returned when the server cancelled a statement (statement_timeout, or
	// pg_cancel_backend by an operator); the transaction was rolled back. Retrying may succeed
	// (IsRetryable). A caller's own context deadline is reported as context.DeadlineExceeded
	// instead.
	ErrTimeout = errors.New("statement timed out")
)

// uniqueExternalID is the unique index on (tenant_id, external_id) of zb.memory.
const uniqueExternalID = "memory_external_id_idx"

// interpretError maps database errors to the coordinator's sentinels, in one place, and
// wraps everything with the operation. The underlying error stays in the chain (errors.As
// still finds a *pgconn.PgError).
func interpretError(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("error %s: %w", op, ErrNotFound)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("error %s: %w", op, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case pgerrcode.ForeignKeyViolation:
			if strings.HasSuffix(pgErr.ConstraintName, "_tenant_id_fkey") {
				// A write for a tenant that was never created (a first Store creates it).
				return fmt.Errorf("error %s: %w: no such tenant (%s)", op, ErrNotFound, pgErr.ConstraintName)
			}
			return fmt.Errorf("error %s: %w (%s)", op, ErrNotFound, pgErr.ConstraintName)
		case pgerrcode.UniqueViolation:
			if pgErr.ConstraintName == uniqueExternalID {
				return fmt.Errorf("error %s: %w: %w", op, ErrDuplicate, err)
			}
			return fmt.Errorf("error %s: %w: %w", op, ErrConflict, err)
		case pgerrcode.SerializationFailure, pgerrcode.DeadlockDetected, pgerrcode.LockNotAvailable:
			return fmt.Errorf("error %s: %w: %w", op, ErrConflict, err)
		case pgerrcode.QueryCanceled:
			return fmt.Errorf("error %s: %w: %w", op, ErrTimeout, err)
		case pgerrcode.CheckViolation, pgerrcode.NotNullViolation:
			return fmt.Errorf("error %s: %w: %w", op, ErrInvalidInput, err)
		}
		switch {
		case unavailableCode(pgErr.Code):
			return fmt.Errorf("error %s: %w: %w", op, ErrUnavailable, err)
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "22": // data exception: the input's values
			return fmt.Errorf("error %s: %w: %w", op, ErrInvalidInput, err)
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "54": // program limit exceeded: tsvector or index row size
			return fmt.Errorf("error %s: %w: %w", op, ErrContentTooLarge, err)
		}
		return fmt.Errorf("error %s: %w", op, err)
	}
	if connectionLost(err) {
		return fmt.Errorf("error %s: %w: %w", op, ErrUnavailable, err)
	}
	return fmt.Errorf("error %s: %w", op, err)
}

// unavailableCode reports whether a SQLSTATE means the server cannot serve the request for now:
// class 08 (connection exception), 53 (insufficient resources: disk full, out of memory, too
// many connections), 57P01-57P05 (shutdown, restart, idle session timeout) and 25P03 (idle in
// transaction timeout, after which the server closes the connection).
func unavailableCode(code string) bool {
	switch code {
	case pgerrcode.AdminShutdown, pgerrcode.CrashShutdown, pgerrcode.CannotConnectNow,
		pgerrcode.IdleInTransactionSessionTimeout, "57P04", "57P05": // database_dropped, idle_session_timeout
		return true
	}
	return len(code) == 5 && (code[:2] == "08" || code[:2] == "53")
}

// connectionLost reports whether err (not a server error) is a lost, closed or refused
// connection.
func connectionLost(err error) bool {
	if pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne)
}

// IsRetryable reports whether retrying the operation that returned err may succeed: a conflict
// with a concurrent write (ErrConflict, except ErrDuplicate), an unavailable database
// (ErrUnavailable: lost connection, restart, shutdown, out of resources) or a statement timeout
// (ErrTimeout). Unwrapped pgx and PostgreSQL errors of the same kinds count too. It reports false
// for nil, input errors, ErrNotFound, ErrDuplicate and the caller's own context cancellation or
// deadline.
//
// A write whose connection broke during COMMIT may have committed: retry writes that carry an
// ExternalID, and treat ErrDuplicate on a retry as success. Retry does this loop with backoff.
func IsRetryable(err error) bool {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, ErrInvalidInput), errors.Is(err, ErrNotFound), errors.Is(err, ErrDuplicate):
		return false
	case errors.Is(err, ErrConflict), errors.Is(err, ErrUnavailable), errors.Is(err, ErrTimeout):
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case pgerrcode.SerializationFailure, pgerrcode.DeadlockDetected, pgerrcode.LockNotAvailable,
			pgerrcode.QueryCanceled:
			return true
		}
		return unavailableCode(pgErr.Code)
	}
	return connectionLost(err)
}

// isForeignKeyViolation reports whether err is a foreign key violation (23503): a row names a
// tenant (or another row) that does not exist.
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == pgerrcode.ForeignKeyViolation
}

// isLockTimeout reports whether err is a lock_timeout (55P03).
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == pgerrcode.LockNotAvailable
}
