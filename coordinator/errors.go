package coordinator

import (
	"context"
	"errors"
	"fmt"

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
	// ErrContentTooLarge is returned for content above Config.MaxContentBytes.
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
	// serialization failure or a lock timeout); retrying may succeed.
	ErrConflict = errors.New("conflict with a concurrent write")
)

// interpretError maps database errors to the coordinator's sentinels, in one place, and
// wraps everything with the operation.
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
			return fmt.Errorf("error %s: %w (%s)", op, ErrNotFound, pgErr.ConstraintName)
		case pgerrcode.UniqueViolation, pgerrcode.SerializationFailure, pgerrcode.DeadlockDetected,
			pgerrcode.LockNotAvailable:
			return fmt.Errorf("error %s: %w: %w", op, ErrConflict, err)
		case pgerrcode.CheckViolation, pgerrcode.NotNullViolation, pgerrcode.StringDataRightTruncationDataException,
			pgerrcode.InvalidTextRepresentation, pgerrcode.CharacterNotInRepertoire, pgerrcode.UntranslatableCharacter,
			pgerrcode.DataException, pgerrcode.NumericValueOutOfRange:
			return fmt.Errorf("error %s: %w: %w", op, ErrInvalidInput, err)
		}
	}
	return fmt.Errorf("error %s: %w", op, err)
}

// isLockTimeout reports whether err is a lock_timeout (55P03).
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == pgerrcode.LockNotAvailable
}
