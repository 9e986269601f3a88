package reliability

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// A recall reads a memory's stability without a lock and writes the grown stability in its
// side-effect transaction. A write committed in between (a sleep's LTP growth, a review) must
// not be overwritten: the recall's growth factor applies to the current value.
func TestRecallKeepsConcurrentStabilityGrowth(t *testing.T) {
	t.Parallel()
	u, admin := db(t)
	ctx := context.Background()
	g := newGate("-- name: RecallApply")
	co := newCoordinator(t, newPool(t, u, g, nil), nil)
	res, err := co.Store(ctx, coordinator.StoreInput{TenantID: "lu", Content: "Grace keeps bees in Vienna"})
	require.NoError(t, err)
	var s0 float64
	var fade0 time.Time
	require.NoError(t, admin.QueryRow(ctx, `SELECT stability, fade_at FROM zb.memory WHERE id = $1`, res.ID).Scan(&s0, &fade0))

	g.armed.Store(true)
	done := make(chan *coordinator.RecallResult, 1)
	go func() {
		rec, err := co.Recall(ctx, "lu", "who keeps bees?", nil)
		if err != nil {
			t.Error(err)
		}
		done <- rec
	}()
	waitGate(t, g, 30*time.Second)
	// Another writer (here standing in for a sleep's LTP) triples the stability and commits.
	_, err = admin.Exec(ctx, `UPDATE zb.memory SET stability = stability * 3 WHERE id = $1`, res.ID)
	require.NoError(t, err)
	close(g.release)
	rec := <-done
	require.NotNil(t, rec)
	require.Equal(t, []int64{res.ID}, rec.Touched)

	var s1 float64
	var fade time.Time
	var last time.Time
	require.NoError(t, admin.QueryRow(ctx, `SELECT stability, fade_at, last_accessed_at FROM zb.memory WHERE id = $1`, res.ID).Scan(&s1, &fade, &last))
	growth := s1 / (3 * s0)
	t.Logf("stability %.4f d → ×3 by a concurrent writer → %.4f d after the recall (recall growth ×%.3f)", s0, s1, growth)
	require.GreaterOrEqual(t, growth, 1.04, "the concurrent growth survives, and the recall's own growth (×1.05 at R ≈ 1) applies on top")
	require.Less(t, growth, 2.0+1e-9, "a recall grows stability by at most ×2")
	// Since 0014 recall leaves fade_at to DecayDue (its access update must stay HOT, and fade_at
	// is an index key): the stored fade time is a lower bound that decay moves forward when it
	// comes due with R ≥ 0.1. It never moves earlier than the true fade time of the stored state.
	require.True(t, fade.Equal(fade0), "recall does not rewrite fade_at (was %v, now %v)", fade0, fade)
	days := fade.Sub(last).Hours() / 24
	require.LessOrEqual(t, days, math.Log(10)*s1, "the stored fade time is not after R(t) = 0.1 of the stored stability")
}

// soak reports whether the long variants run (ZB_SOAK=1).
func soak() bool { ok, _ := strconv.ParseBool(os.Getenv("ZB_SOAK")); return ok }

// Recall, store+derive (with reconsolidation of labile memories), sleep, decay and erase run at
// once on the same tenant's memories. None deadlocks (every call returns within the deadline, no
// 40P01), none fails, and no update is lost: every memory's access_count equals the number of
// recalls that reported touching it.
func TestConcurrentRecallReconsolidationSleep(t *testing.T) {
	t.Parallel()
	_, pool := db(t)
	co := newCoordinator(t, pool, &coordinator.Config{LabilityWindow: time.Hour})
	const ten = "cc"
	rounds, deadline := 12, 2*time.Minute
	if soak() {
		rounds, deadline = 200, 30*time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var seed []int64
	for i := range 40 {
		r, err := co.Store(ctx, coordinator.StoreInput{
			TenantID: ten,
			Content:  fmt.Sprintf("%s told %s about the %s project in %s (note %d)", wlName(i), wlName(i+3), wlWordA(i), wlPlace(i), i),
		})
		require.NoError(t, err)
		seed = append(seed, r.ID)
	}
	_, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, MemoryIDs: seed}, nil)
	require.NoError(t, err)

	var mu sync.Mutex
	touched := map[int64]int{}
	var fails []error
	fail := func(err error) {
		mu.Lock()
		fails = append(fails, err)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	stats := struct{ recalls, stores, derives, sleeps, decays, erases, recon int }{}
	for r := range 3 {
		wg.Go(func() {
			for i := range rounds * 2 {
				rec, err := co.Recall(ctx, ten, fmt.Sprintf("what did %s say about the %s project?", wlName(i+r), wlWordA(i)), &coordinator.RecallOpts{K: 5})
				if err != nil {
					fail(fmt.Errorf("recall: %w", err))
					return
				}
				mu.Lock()
				stats.recalls++
				for _, id := range rec.Touched {
					touched[id]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Go(func() {
		for i := range rounds {
			// A related newer statement about a recalled (labile) memory: derive reconsolidates it.
			r, err := co.Store(ctx, coordinator.StoreInput{
				TenantID: ten,
				Content:  fmt.Sprintf("%s told %s about the %s project in %s, and more (update %d)", wlName(i), wlName(i+3), wlWordA(i), wlPlace(i), i),
			})
			if err != nil {
				fail(fmt.Errorf("store: %w", err))
				return
			}
			rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, MemoryIDs: []int64{r.ID}}, nil)
			if err != nil {
				fail(fmt.Errorf("derive: %w", err))
				return
			}
			mu.Lock()
			stats.stores++
			stats.derives++
			stats.recon += rep.Reconsolidations
			mu.Unlock()
		}
	})
	wg.Go(func() {
		for i := range rounds / 2 {
			if _, err := co.Sleep(ctx, ten, &coordinator.SleepOpts{Trigger: "manual", Seed: int64(i + 1)}, nil); err != nil {
				fail(fmt.Errorf("sleep: %w", err))
				return
			}
			if _, err := co.DecayDue(ctx, ten, 0, nil); err != nil {
				fail(fmt.Errorf("decay: %w", err))
				return
			}
			mu.Lock()
			stats.sleeps++
			stats.decays++
			mu.Unlock()
		}
	})
	erased := map[int64]bool{}
	wg.Go(func() {
		// GDPR erase of some of the memories the others work on (zb.erase locks the memories
		// derived from them).
		for i := range rounds / 3 {
			id := seed[(i*7+5)%len(seed)]
			if _, err := co.Erase(ctx, ten, coordinator.EraseScope{Kind: coordinator.EraseMemory, MemoryID: id}, nil); err != nil {
				fail(fmt.Errorf("erase: %w", err))
				return
			}
			mu.Lock()
			erased[id] = true
			stats.erases++
			mu.Unlock()
		}
	})
	wg.Wait()
	for _, err := range fails {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "40P01" {
			t.Errorf("deadlock: %v", err)
		}
	}
	require.Empty(t, fails)
	require.NoError(t, ctx.Err(), "everything finished within the deadline")
	t.Logf("%+v", stats)
	require.Positive(t, stats.recon, "derive reconsolidated labile memories")

	rows, err := pool.Query(ctx, `SELECT id, access_count FROM zb.memory WHERE tenant_id = $1`, ten)
	require.NoError(t, err)
	got := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		require.NoError(t, rows.Scan(&id, &n))
		if n > 0 {
			got[id] = n
		}
	}
	require.NoError(t, rows.Err())
	for id := range erased {
		delete(touched, id)
		delete(got, id)
	}
	require.Equal(t, touched, got, "access_count = recalls that touched the memory (no lost update)")
}
