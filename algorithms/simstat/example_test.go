package simstat_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/simstat"
)

func ExampleMulberry32() {
	g := simstat.NewMulberry32(42)
	for range 3 {
		fmt.Printf("%.6f\n", g.Float64())
	}
	// Output:
	// 0.601104
	// 0.448291
	// 0.852466
}

func ExampleWilcoxonSignedRank() {
	// Per-seed scores of a full system and an ablation over the ten seeds.
	full := []float64{0.82, 0.79, 0.85, 0.81, 0.80, 0.84, 0.83, 0.78, 0.86, 0.81}
	ablated := []float64{0.71, 0.74, 0.70, 0.77, 0.72, 0.75, 0.69, 0.73, 0.76, 0.70}
	res, err := simstat.WilcoxonSignedRank(full, ablated)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := simstat.CohenD(full, ablated)
	ci, _ := simstat.BootstrapCI(full, &simstat.BootstrapConfig{Seed: 42})
	fmt.Printf("W=%g n=%d method=%s p=%.6f\n", res.W, res.N, res.Method, res.P)
	fmt.Printf("d=%.2f\n", d)
	fmt.Printf("mean %.3f, 95%% CI [%.3f, %.3f]\n", ci.Estimate, ci.Lower, ci.Upper)
	// Output:
	// W=0 n=10 method=exact p=0.001953
	// d=3.44
	// mean 0.819, 95% CI [0.804, 0.834]
}
