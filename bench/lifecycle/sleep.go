package lifecycle

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zenbrain/zb/bench/internal/stmtstats"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/jobs"
)

// SleepFigure is the sleep benchmark at one size.
type SleepFigure struct {
	// N is the tenant's memory count (half episodic, half semantic), all derived before the
	// sleep.
	N int `json:"n"`
	// Setup is the time to load and derive the N memories (not part of the figure).
	Setup Seconds `json:"setup_s"`
	// Sleep is the time of the tenant's sleep: the Sleep rounds (coordinator.SleepOpts.Round)
	// until its window is exhausted; Rounds their number and MaxEpisodes the episodes per round.
	Sleep       Seconds `json:"sleep_s"`
	Rounds      int     `json:"rounds"`
	MaxEpisodes int     `json:"max_episodes"`
	// Ratio is Sleep over the first size's Sleep (1k by default); StepRatio over the previous
	// size's (0 for the first).
	Ratio     float64 `json:"ratio"`
	StepRatio float64 `json:"step_ratio,omitempty"`
	// Target and Met apply to every size after the first: Ratio ≤ SleepTarget(N / first N).
	Target float64 `json:"target,omitempty"`
	Met    *bool   `json:"met,omitempty"`
	// The sleep's figures summed over its rounds: episodes considered, LTP, LTD, new
	// associations, pruned edges, archives, schemas; and the tenant's edges before the first.
	Episodes        int `json:"episodes"`
	LTP             int `json:"ltp"`
	LTD             int `json:"ltd"`
	NewAssociations int `json:"new_associations"`
	Pruned          int `json:"pruned"`
	Archived        int `json:"archived"`
	Schemas         int `json:"schemas"`
	EdgesBefore     int `json:"edges_before"`
	// RoundP50 and RoundMax are the median and the longest round (seconds).
	RoundP50 Seconds `json:"round_p50_s"`
	RoundMax Seconds `json:"round_max_s"`
	// SetupStatements are the top statements of the setup (store and derivation) and
	// SleepStatements those of the rounds, by total time (pg_stat_statements), or empty with
	// StatementsUnavailable saying why.
	SetupStatements       []stmtstats.Statement `json:"setup_statements,omitempty"`
	SleepStatements       []stmtstats.Statement `json:"sleep_statements,omitempty"`
	StatementsUnavailable string                `json:"statements_unavailable,omitempty"`
}

// sleepTopStatements is how many statements each of a figure's lists keeps.
const sleepTopStatements = 8

// benchSleep loads and derives each size in a database of its own, then times the tenant's
// sleep: every round of its window.
func benchSleep(ctx context.Context, c *Config) ([]SleepFigure, error) {
	var out []SleepFigure
	for _, n := range c.SleepSizes {
		f, err := sleepOne(ctx, c, n)
		if err != nil {
			return nil, fmt.Errorf("at %d: %w", n, err)
		}
		f.Ratio = 1
		if len(out) > 0 {
			f.Ratio = float64(f.Sleep) / float64(out[0].Sleep)
			f.StepRatio = float64(f.Sleep) / float64(out[len(out)-1].Sleep)
			f.Target = SleepTarget(float64(n) / float64(out[0].N))
			met := f.Ratio <= f.Target
			f.Met = &met
		}
		c.Logger.Info("sleep", "n", n, "sleep_s", f.Sleep, "ratio", f.Ratio, "target", f.Target, "episodes", f.Episodes)
		out = append(out, *f)
	}
	return out, nil
}

// SleepTarget is the largest acceptable sleep time of a tenant scale times the first size's,
// over the first size's time: SleepTargetRatio per tenfold, SleepTargetRatio^log10(scale)
// (12× at 10×, 144× at 100×, ≈ 2.1× at 2×), so that cost proportional to the tenant's size
// passes at every size with 20 % per decade to spare and a quadratic cost fails from 2× on.
func SleepTarget(scale float64) float64 {
	return math.Pow(SleepTargetRatio, math.Log10(scale))
}

func sleepOne(ctx context.Context, c *Config, n int) (*SleepFigure, error) {
	bdb, err := newDB(ctx, c, 8)
	if err != nil {
		return nil, err
	}
	defer bdb.drop()
	emb, err := embed.New(&embed.Config{Dim: c.Dim})
	if err != nil {
		return nil, err
	}
	co, err := coordinator.New(&coordinator.Config{Pool: bdb.pool, Embedder: emb})
	if err != nil {
		return nil, err
	}
	tenant := "sleep"
	unavailable := stmtstats.Reset(ctx, bdb.pool)
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)+17))
	began := time.Now()
	// One generated corpus, stored in batches of at most coordinator.MaxBatch (the same rows as
	// one call for the sizes that fit in one).
	items := genItems(r, tenant, n)
	for start := 0; start < n; start += coordinator.MaxBatch {
		if _, err := co.StoreBatch(ctx, items[start:min(n, start+coordinator.MaxBatch)]); err != nil {
			return nil, err
		}
	}
	items = nil
	c.Logger.Info("sleep setup: stored", "n", n, "elapsed_s", secs(time.Since(began)))
	lastLog := time.Now()
	for derived := 0; ; {
		rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true, RecheckSupersede: true}, nil)
		if err != nil {
			return nil, err
		}
		derived += len(rep.Derived)
		if !rep.More {
			break
		}
		if time.Since(lastLog) > time.Minute {
			c.Logger.Info("sleep setup: deriving", "n", n, "derived", derived, "elapsed_s", secs(time.Since(began)))
			lastLog = time.Now()
		}
	}
	f := &SleepFigure{N: n, Setup: secs(time.Since(began)), StatementsUnavailable: unavailable}
	if unavailable == "" {
		if f.SetupStatements, err = stmtstats.Top(ctx, bdb.pool, sleepTopStatements); err != nil {
			return nil, err
		}
	}
	for _, sql := range []string{`DELETE FROM river.river_job`, `VACUUM (ANALYZE)`} {
		if _, err := bdb.pool.Exec(ctx, sql); err != nil {
			return nil, err
		}
	}
	if unavailable == "" {
		if unavailable = stmtstats.Reset(ctx, bdb.pool); unavailable != "" {
			return nil, fmt.Errorf("pg_stat_statements stopped working after the setup: %s", unavailable)
		}
	}
	f.MaxEpisodes = coordinator.SleepMaxEpisodes
	var rounds []time.Duration
	for round := 0; ; round++ {
		t0 := time.Now()
		rep, err := co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "benchmark", Seed: int64(c.Seed), Round: round}, nil)
		if err != nil {
			return nil, err
		}
		took := time.Since(t0)
		f.Sleep += secs(took)
		rounds = append(rounds, took)
		if round == 0 {
			f.EdgesBefore = rep.EdgesBefore
		}
		f.Rounds++
		f.Episodes, f.LTP, f.LTD, f.NewAssociations = f.Episodes+rep.Episodes, f.LTP+rep.LTP, f.LTD+rep.LTD, f.NewAssociations+rep.NewAssociations
		f.Pruned, f.Archived, f.Schemas = f.Pruned+rep.Pruned, f.Archived+rep.Archived, f.Schemas+rep.SchemasCreated
		if !rep.More {
			break
		}
		if round > n/f.MaxEpisodes+1 {
			return nil, fmt.Errorf("sleep of %d memories still had more after %d rounds", n, f.Rounds)
		}
	}
	f.RoundP50, f.RoundMax = secs(median(rounds)), secs(slices.Max(rounds))
	if unavailable == "" {
		if f.SleepStatements, err = stmtstats.Top(ctx, bdb.pool, sleepTopStatements); err != nil {
			return nil, err
		}
	}
	return f, nil
}
