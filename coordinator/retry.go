package coordinator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Defaults of RetryOpts.
const (
	// RetryMaxAttemptsDefault is the default RetryOpts.MaxAttempts.
	RetryMaxAttemptsDefault = 5
	// RetryInitialBackoffDefault is the default RetryOpts.InitialBackoff.
	RetryInitialBackoffDefault = 50 * time.Millisecond
	// RetryMaxBackoffDefault is the default RetryOpts.MaxBackoff.
	RetryMaxBackoffDefault = 2 * time.Second
)

// RetryOpts configure Retry. Nil means all defaults.
type RetryOpts struct {
	// MaxAttempts is the number of calls at most, the first included. Defaults to
	// RetryMaxAttemptsDefault (5).
	MaxAttempts int

	// InitialBackoff is the upper bound of the first wait. Defaults to
	// RetryInitialBackoffDefault (50 ms).
	InitialBackoff time.Duration

	// MaxBackoff caps every wait. Defaults to RetryMaxBackoffDefault (2 s). The wait before
	// attempt n+1 is uniform in [0, min(MaxBackoff, InitialBackoff·2^(n−1))] ("full jitter"), so
	// clients that failed together do not retry together.
	MaxBackoff time.Duration

	// OnRetry, when set, is called before each wait with the attempt that failed (1-based), its
	// error and the wait, e.g. to log or count retries.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Retry calls fn until it succeeds, returns an error that IsRetryable rejects, the attempts are
// used up or ctx ends, and returns fn's last result. Between attempts it waits with exponential
// backoff and full jitter. When attempts run out, the error wraps the last one (errors.Is still
// matches its sentinels).
//
// A write retried after its connection broke during COMMIT may already be stored; give it an
// ExternalID and treat ErrDuplicate from a later attempt as success:
//
//	res, err := coordinator.Retry(ctx, nil, func(ctx context.Context) (*coordinator.StoreResult, error) {
//		return co.Store(ctx, in) // in.ExternalID set
//	})
//	if errors.Is(err, coordinator.ErrDuplicate) { /* stored by an earlier attempt */ }
func Retry[T any](ctx context.Context, opts *RetryOpts, fn func(ctx context.Context) (T, error)) (T, error) {
	o := RetryOpts{}
	if opts != nil {
		o = *opts
	}
	o.MaxAttempts = cmp.Or(o.MaxAttempts, RetryMaxAttemptsDefault)
	o.InitialBackoff = cmp.Or(o.InitialBackoff, RetryInitialBackoffDefault)
	o.MaxBackoff = cmp.Or(o.MaxBackoff, RetryMaxBackoffDefault)
	var zero T
	if o.MaxAttempts < 1 || o.InitialBackoff < 0 || o.MaxBackoff < 0 {
		return zero, fmt.Errorf("%w: RetryOpts: MaxAttempts must be positive and backoffs not negative", ErrInvalidInput)
	}
	for attempt := 1; ; attempt++ {
		v, err := fn(ctx)
		if err == nil || !IsRetryable(err) {
			return v, err
		}
		if attempt >= o.MaxAttempts {
			return v, fmt.Errorf("giving up after %d attempts: %w", attempt, err)
		}
		ceil := o.InitialBackoff << min(attempt-1, 30)
		if ceil <= 0 || ceil > o.MaxBackoff {
			ceil = o.MaxBackoff
		}
		wait := time.Duration(rand.Int64N(int64(ceil) + 1))
		if o.OnRetry != nil {
			o.OnRetry(attempt, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return v, errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}
