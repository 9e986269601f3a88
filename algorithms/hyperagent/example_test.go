package hyperagent_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/hyperagent"
)

func ExamplePropose() {
	now := time.Date(2024, 5, 15, 3, 0, 0, 0, time.UTC)
	signals := hyperagent.Signals{ConfirmationBias: 0.25, RetrievalEfficiency: 0.7, ReviewLapseRate: 0.1, Samples: 60}
	params := hyperagent.DefaultParams()
	e, _ := hyperagent.Propose(signals, params, nil, now, nil)
	for _, a := range e.Adjustments {
		fmt.Printf("%s %.3f → %.3f (%s)\n", a.Param, a.From, a.To, a.Reason)
	}
	applied, _ := hyperagent.Apply(params, e)
	reverted, _ := hyperagent.Revert(applied, e)
	fmt.Println(e.Risk, applied.RetrievalDiversity, reverted == params)
	// Output:
	// retrieval_diversity 0.300 → 0.350 (confirmation bias 0.250 > 0.150: diversify retrieval)
	// exploration 0.050 → 0.070 (confirmation bias 0.250 > 0.150: explore less-retrieved memories)
	// medium 0.35 true
}
