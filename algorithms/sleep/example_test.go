package sleep_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/sleep"
)

func Example() {
	in := sleep.Input{
		Episodes: []sleep.Episode{
			// A failed attempt and a successful one that mention the same tool.
			{ID: "m:1", Value: 0.1, Reward: 0.1, Retrievability: 0.8, Related: 2, EntityIDs: []string{"e:psql", "e:vacuum"}, Stability: 1},
			{ID: "m:2", Value: 0.3, Reward: 0.9, Retrievability: 0.9, Related: 3, EntityIDs: []string{"e:psql", "e:index"}, Stability: 3},
		},
		Edges: []sleep.Edge{{A: "e:psql", B: "e:index", Weight: 1}, {A: "e:psql", B: "e:vacuum", Weight: 0.4}},
	}
	plan, err := sleep.NewPlan(in, nil, 42)
	if err != nil {
		panic(err)
	}
	for _, c := range plan.Candidates {
		fmt.Printf("%-12s %-14s TAG %.3f selected %v\n", c.ID, c.Source, c.TAG, c.Selected)
	}
	for _, d := range plan.EdgeDeltas {
		fmt.Printf("%s %s–%s %+.2f\n", d.Kind, d.A, d.B, d.Delta)
	}
	for _, n := range plan.NewEdges {
		fmt.Printf("new %s–%s %.2f\n", n.A, n.B, n.Weight)
	}
	fmt.Printf("%+v\n", plan.Summary)
	// Output:
	// m:1          real           TAG 0.380 selected false
	// m:2          real           TAG 0.705 selected true
	// cf:m:1->m:2  counterfactual TAG 0.750 selected true
	// ltp e:index–e:psql +0.10
	// ltd e:psql–e:vacuum -0.05
	// new m:1–m:2 0.10
	// {Real:2 Counterfactual:1 Selected:2 SelectedReal:1 SelectedCounterfactual:1 LTP:1 LTD:1 NewEdges:1 StabilityUpdates:1 Promotions:1 Archives:0 Prunes:0 EdgesBefore:2 EdgesAfter:3 MeanTAG:0.6116666666666667}
}
