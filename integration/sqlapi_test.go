package integration

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/zenbrain/zb/algorithms/bayes"
	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/algorithms/hebbian"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/pma"
)

// parityN is the number of random inputs each SQL formula is compared on with its Go twin.
const parityN = 10000

// parityTol is the largest |SQL − Go| accepted for a formula.
const parityTol = 1e-9

var parityNow = time.Date(2025, 3, 14, 15, 9, 26, 535897000, time.UTC)

// usTime returns now shifted by d, truncated to the microsecond PostgreSQL stores.
func usTime(d time.Duration) time.Time { return parityNow.Add(d).Truncate(time.Microsecond) }

// randDur returns a random duration in [lo, hi] days, microsecond-exact.
func randDur(r *rand.Rand, lo, hi float64) time.Duration {
	return time.Duration((lo + r.Float64()*(hi-lo)) * float64(forgetting.Day)).Truncate(time.Microsecond)
}

// sqlFloats runs query (which must return one float8 per input row, in order) and returns the values.
func sqlFloats(t *testing.T, pool *pgxpool.Pool, query string, args ...any) []float64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), query, args...)
	require.NoError(t, err)
	defer rows.Close()
	var out []float64
	for rows.Next() {
		var v *float64
		require.NoError(t, rows.Scan(&v))
		if v == nil {
			out = append(out, math.NaN())
		} else {
			out = append(out, *v)
		}
	}
	require.NoError(t, rows.Err())
	return out
}

// requireParity checks |sql[i] − goV[i]| ≤ parityTol for every i and reports the largest gap.
func requireParity(t *testing.T, name string, sql, goV []float64) {
	t.Helper()
	require.Len(t, sql, len(goV), name)
	worst, at := 0.0, -1
	for i := range goV {
		d := math.Abs(sql[i] - goV[i])
		if math.IsNaN(goV[i]) && math.IsNaN(sql[i]) {
			d = 0
		}
		if math.IsNaN(d) || d > worst {
			worst, at = d, i
			if math.IsNaN(d) {
				break
			}
		}
	}
	t.Logf("%s: %d inputs, max |Δ| = %.3g", name, len(goV), worst)
	if at >= 0 {
		require.LessOrEqual(t, worst, parityTol, "%s: input %d: sql %v, go %v", name, at, sql[at], goV[at])
	}
}

func TestSQLFormulaParity(t *testing.T) {
	t.Parallel()
	pool := zbtest.Pool(t, nil)

	t.Run("emotional_multiplier", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 2))
		var v, a, s, want []float64
		for range parityN {
			// Stored as real: round through float32 as the database does.
			vi, ai, si := float64(float32(r.Float64()*2-1)), float64(float32(r.Float64())), float64(float32(r.Float64()))
			if r.IntN(4) == 0 {
				ai, si = 0, 0
			}
			m, err := forgetting.EmotionalMultiplier(vi, ai, si)
			require.NoError(t, err)
			v, a, s, want = append(v, vi), append(a, ai), append(s, si), append(want, m)
		}
		got := sqlFloats(t, pool, `SELECT zb.emotional_multiplier(v, a, s)
			FROM unnest($1::float8[], $2::float8[], $3::float8[]) WITH ORDINALITY AS x(v, a, s, n) ORDER BY n`, v, a, s)
		requireParity(t, "emotional_multiplier", got, want)
	})

	t.Run("retrievability", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 3))
		var stab []*float64
		var mEmo []float64
		var last []time.Time
		var want []float64
		for i := range parityN {
			m := 1 + 2*r.Float64()
			la := usTime(-randDur(r, -2, 400))
			var sp *float64
			w := 1.0
			if i%10 != 0 { // every tenth is a core memory (NULL stability)
				s := math.Exp(r.Float64()*math.Log(1e5/1e-3)) * 1e-3 // log-uniform in [0.001, 100000] days
				sp = &s
				tr := forgetting.Trace{
					Layer: forgetting.LayerSemantic, Stability: time.Duration(s * float64(forgetting.Day)),
					EmotionalMultiplier: m, LastAccess: la,
				}
				if tr.Validate() == nil {
					var err error
					w, err = tr.Retrievability(parityNow)
					require.NoError(t, err)
				}
			}
			stab, mEmo, last, want = append(stab, sp), append(mEmo, m), append(last, la), append(want, w)
		}
		got := sqlFloats(t, pool, `SELECT zb.retrievability(s, m, l, $4)
			FROM unnest($1::float8[], $2::float8[], $3::timestamptz[]) WITH ORDINALITY AS x(s, m, l, n) ORDER BY n`,
			stab, mEmo, last, parityNow)
		requireParity(t, "retrievability", got, want)
	})

	t.Run("triple_copy_strength", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 4))
		tcm, err := pma.NewTripleCopyMemory(nil)
		require.NoError(t, err)
		var fast, medium, deep []float64
		var stored []time.Time
		var promoted []*time.Time
		var want []float64
		for i := range parityN {
			st := usTime(-randDur(r, -0.5, 60))
			s0 := 1 - r.Float64() // (0, 1]
			tc, err := tcm.Store("e", s0, st)
			require.NoError(t, err)
			var pp *time.Time
			if i%3 != 0 {
				p := st.Add(randDur(r, 0, 30))
				tc, err = tcm.Promote(tc, 1-r.Float64(), p)
				require.NoError(t, err)
				pp = &p
			}
			fast, medium, deep = append(fast, tc.FastStrength), append(medium, tc.MediumStrength), append(deep, tc.DeepStrength)
			stored, promoted = append(stored, st), append(promoted, pp)
			want = append(want, tcm.Strengths(tc, parityNow).Strength)
		}
		got := sqlFloats(t, pool, `SELECT zb.triple_copy_strength(f, m, d, s, p, $6)
			FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::timestamptz[], $5::timestamptz[])
			WITH ORDINALITY AS x(f, m, d, s, p, n) ORDER BY n`, fast, medium, deep, stored, promoted, parityNow)
		requireParity(t, "triple_copy_strength", got, want)
	})

	// Old copies: a fast copy 100–140 days old has exp(−age/4 h) between e^−840 and e^−600, where
	// exp(x) is subnormal or rounds S0·exp(x) to 0 — PostgreSQL raised "value out of range:
	// underflow" there until 0015 (a decay job of a long-lived tenant failed on it).
	t.Run("triple_copy_strength_old", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 40))
		tcm, err := pma.NewTripleCopyMemory(nil)
		require.NoError(t, err)
		var fast, medium, deep []float64
		var stored []time.Time
		var want []float64
		for i := range 2000 {
			days := 100 + 40*r.Float64()
			if i%10 == 0 {
				days = 365 * 30 * r.Float64()
			}
			st := parityNow.Add(-time.Duration(days * 24 * float64(time.Hour))).Truncate(time.Microsecond)
			tc, err := tcm.Store("e", 1-r.Float64(), st)
			require.NoError(t, err)
			fast, medium, deep = append(fast, tc.FastStrength), append(medium, tc.MediumStrength), append(deep, tc.DeepStrength)
			stored = append(stored, st)
			want = append(want, tcm.Strengths(tc, parityNow).Strength)
		}
		got := sqlFloats(t, pool, `SELECT zb.triple_copy_strength(f, m, d, s, NULL, $5)
			FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::timestamptz[])
			WITH ORDINALITY AS x(f, m, d, s, n) ORDER BY n`, fast, medium, deep, stored, parityNow)
		requireParity(t, "triple_copy_strength (old copies)", got, want)
		got = sqlFloats(t, pool, `SELECT zb.copy_strength('fast', f, 14400, s, $3)
			FROM unnest($1::float8[], $2::timestamptz[]) WITH ORDINALITY AS x(f, s, n) ORDER BY n`, fast, stored, parityNow)
		for i, g := range got {
			require.GreaterOrEqual(t, g, 0.0)
			if parityNow.Sub(stored[i]) >= 100*24*time.Hour {
				require.LessOrEqual(t, g, 1e-200, "a fast copy %d days old", int(parityNow.Sub(stored[i]).Hours()/24))
			}
		}
	})

	t.Run("priority", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 5))
		pm, err := pma.NewPriorityMap(nil)
		require.NoError(t, err)
		var s, v, rel, g, want []float64
		for range parityN {
			in := pma.PriorityInput{Salience: r.Float64(), Valence: r.Float64()*2 - 1, Relevance: r.Float64(), Goal: r.Float64()}
			p, err := pm.Score(in, pma.BaselineLevels())
			require.NoError(t, err)
			s, v, rel, g = append(s, in.Salience), append(v, in.Valence), append(rel, in.Relevance), append(g, in.Goal)
			want = append(want, p.Score)
		}
		got := sqlFloats(t, pool, `SELECT zb.priority(s, v, r, g)
			FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[]) WITH ORDINALITY AS x(s, v, r, g, n) ORDER BY n`,
			s, v, rel, g)
		requireParity(t, "priority", got, want)
	})

	t.Run("stability_lock", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 6))
		sp, err := pma.NewStabilityProtector(nil)
		require.NoError(t, err)
		var acc []int32
		var conf, age []float64
		var core []bool
		var wantL, wantRho, wantTh, wantLocked []float64
		for range parityN {
			in := pma.StabilityInput{
				AccessCount: r.IntN(30), Confidence: r.Float64(), AgeDays: math.Exp(r.Float64()*12) - 1,
				Core: r.IntN(5) == 0,
			}
			l, err := sp.Evaluate("m", in, parityNow)
			require.NoError(t, err)
			acc, conf, age, core = append(acc, int32(in.AccessCount)), append(conf, in.Confidence), append(age, in.AgeDays), append(core, in.Core)
			wantL, wantRho, wantTh = append(wantL, l.Score), append(wantRho, l.Rigidity), append(wantTh, l.Threshold)
			wantLocked = append(wantLocked, map[bool]float64{true: 1, false: 0}[l.Locked])
		}
		q := `SELECT %s FROM unnest($1::int[], $2::float8[], $3::float8[], $4::bool[]) WITH ORDINALITY AS x(a, c, d, k, n)
			CROSS JOIN LATERAL zb.stability_lock(a, c, d, k) s ORDER BY n`
		for _, col := range []struct {
			expr string
			want []float64
		}{{"s.lock_level", wantL}, {"s.rho", wantRho}, {"s.threshold", wantTh}, {"s.locked::int::float8", wantLocked}} {
			got := sqlFloats(t, pool, fmt.Sprintf(q, col.expr), acc, conf, age, core)
			requireParity(t, "stability_lock "+col.expr, got, col.want)
		}
	})

	t.Run("edge_weight_at", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 7))
		hm, err := hebbian.New(nil)
		require.NoError(t, err)
		var w, v []float64
		var la []time.Time
		var want []float64
		for range parityN {
			e := hebbian.Edge{
				Weight: r.Float64() * 10, Variance: 0.01 + r.Float64()*(100-0.01),
				LastActivated: usTime(-randDur(r, -1, 365)),
			}
			w, v, la = append(w, e.Weight), append(v, e.Variance), append(la, e.LastActivated)
			want = append(want, hm.WeightAt(e, parityNow))
		}
		got := sqlFloats(t, pool, `SELECT zb.edge_weight_at(w, v, l, $4)
			FROM unnest($1::float8[], $2::float8[], $3::timestamptz[]) WITH ORDINALITY AS x(w, v, l, n) ORDER BY n`,
			w, v, la, parityNow)
		requireParity(t, "edge_weight_at", got, want)
	})

	t.Run("beta_quantile", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 8))
		var ps, as, bs, want []float64
		for i := range parityN {
			a, b := math.Exp(math.Log(0.5)+r.Float64()*math.Log(1000)), math.Exp(math.Log(0.5)+r.Float64()*math.Log(1000))
			switch i % 10 {
			case 1:
				a = 1
			case 6:
				b = 1
			}
			p := []float64{0.025, 0.975, r.Float64()}[i%3]
			ps, as, bs = append(ps, p), append(as, a), append(bs, b)
			want = append(want, distuv.Beta{Alpha: a, Beta: b}.Quantile(p))
		}
		got := sqlFloats(t, pool, `SELECT zb.beta_quantile(p, a, b)
			FROM unnest($1::float8[], $2::float8[], $3::float8[]) WITH ORDINALITY AS x(p, a, b, n) ORDER BY n`, ps, as, bs)
		requireParity(t, "beta_quantile", got, want)
	})

	t.Run("beta_interval95", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(7, 10))
		var as, bs, wantLo, wantHi []float64
		for i := range parityN {
			// Beliefs as stored: Beta(1, 1) plus fractional evidence, with a few invalid ones.
			a, b := 1+r.Float64()*r.Float64()*60, 1+r.Float64()*r.Float64()*60
			if i%50 == 0 {
				a = -1
			}
			iv := bayes.Belief{Alpha: a, Beta: b}.Interval95()
			as, bs, wantLo, wantHi = append(as, a), append(bs, b), append(wantLo, iv.Lower), append(wantHi, iv.Upper)
		}
		q := `SELECT %s FROM unnest($1::float8[], $2::float8[]) WITH ORDINALITY AS x(a, b, n)
			CROSS JOIN LATERAL zb.beta_interval95(a, b) iv ORDER BY n`
		requireParity(t, "beta_interval95 lower", sqlFloats(t, pool, fmt.Sprintf(q, "iv.lower"), as, bs), wantLo)
		requireParity(t, "beta_interval95 upper", sqlFloats(t, pool, fmt.Sprintf(q, "iv.upper"), as, bs), wantHi)
	})
}
