package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

func TestIsRetryable(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return &pgconn.PgError{Code: code, Message: "x"} }
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{context.Canceled, false},
		{fmt.Errorf("op: %w", context.DeadlineExceeded), false},
		{coordinator.ErrEmptyContent, false},
		{fmt.Errorf("x: %w", coordinator.ErrNotFound), false},
		{fmt.Errorf("x: %w: %w", coordinator.ErrDuplicate, pg("23505")), false},
		{fmt.Errorf("x: %w", coordinator.ErrConflict), true},
		{fmt.Errorf("x: %w", coordinator.ErrUnavailable), true},
		{fmt.Errorf("x: %w", coordinator.ErrTimeout), true},
		{pg("40001"), true},
		{pg("40P01"), true},
		{pg("55P03"), true},
		{pg("57014"), true},
		{pg("57P01"), true},
		{pg("57P03"), true},
		{pg("08006"), true},
		{pg("53100"), true},
		{pg("53300"), true},
		{pg("23514"), false},
		{pg("22P02"), false},
		{pg("42601"), false},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("x: %w", pgconn.ErrConnClosed), true},
		{errors.New("something else"), false},
	} {
		require.Equal(t, c.want, coordinator.IsRetryable(c.err), "%v", c.err)
	}
}

func TestRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fast := &coordinator.RetryOpts{InitialBackoff: time.Microsecond, MaxBackoff: time.Millisecond}

	calls := 0
	v, err := coordinator.Retry(ctx, fast, func(context.Context) (int, error) {
		calls++
		if calls < 3 {
			return 0, fmt.Errorf("attempt %d: %w", calls, coordinator.ErrUnavailable)
		}
		return 42, nil
	})
	require.NoError(t, err)
	require.Equal(t, 42, v)
	require.Equal(t, 3, calls, "retried until it succeeded")

	calls = 0
	_, err = coordinator.Retry(ctx, fast, func(context.Context) (int, error) {
		calls++
		return 0, coordinator.ErrEmptyContent
	})
	require.ErrorIs(t, err, coordinator.ErrEmptyContent)
	require.Equal(t, 1, calls, "an input error is not retried")

	calls = 0
	var waits []time.Duration
	opts := *fast
	opts.MaxAttempts = 4
	opts.OnRetry = func(attempt int, err error, wait time.Duration) {
		require.Equal(t, len(waits)+1, attempt)
		waits = append(waits, wait)
	}
	_, err = coordinator.Retry(ctx, &opts, func(context.Context) (int, error) {
		calls++
		return 0, fmt.Errorf("x: %w", coordinator.ErrConflict)
	})
	require.ErrorIs(t, err, coordinator.ErrConflict, "the last error stays matchable")
	require.Contains(t, err.Error(), "giving up after 4 attempts")
	require.Equal(t, 4, calls)
	require.Len(t, waits, 3)
	for _, w := range waits {
		require.LessOrEqual(t, w, time.Millisecond, "waits are capped at MaxBackoff")
	}

	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	_, err = coordinator.Retry(cctx, &coordinator.RetryOpts{MaxAttempts: 100, InitialBackoff: time.Hour, MaxBackoff: time.Hour},
		func(context.Context) (int, error) {
			calls++
			cancel()
			return 0, coordinator.ErrTimeout
		})
	require.ErrorIs(t, err, context.Canceled, "a cancelled context ends the waiting")
	require.ErrorIs(t, err, coordinator.ErrTimeout)
	require.Equal(t, 1, calls)

	_, err = coordinator.Retry(ctx, &coordinator.RetryOpts{MaxAttempts: -1}, func(context.Context) (int, error) { return 0, nil })
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
}
