package bayes_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/bayes"
)

func Example() {
	// A fact starts at the uniform prior and collects evidence.
	b := bayes.Prior()
	for _, ev := range []bayes.Evidence{
		{Kind: bayes.Confirm, Reliability: 1},
		{Kind: bayes.Confirm, Reliability: 0.8},
		{Kind: bayes.Contradict, Reliability: 0.3},
	} {
		var err error
		if b, err = b.Observe(ev, nil); err != nil {
			panic(err)
		}
	}
	iv := b.Interval95()
	fmt.Printf("own: %.3f [%.3f, %.3f]\n", b.Mean(), iv.Lower, iv.Upper)

	// A well-supported fact contradicts it.
	rival, _ := bayes.FromMean(0.9, 10)
	res, err := bayes.Propagate(
		[]bayes.Fact{{ID: "claim", Belief: b}, {ID: "rival", Belief: rival}},
		[]bayes.Link{{From: "rival", To: "claim", Relation: bayes.Contradicts, Strength: 1}},
		nil,
	)
	if err != nil {
		panic(err)
	}
	for _, f := range res.Facts {
		fmt.Printf("%s: %.3f → %.3f [%.3f, %.3f]\n", f.ID, f.Own, f.Propagated, f.Interval.Lower, f.Interval.Upper)
	}
	// Output:
	// own: 0.683 [0.230, 0.977]
	// claim: 0.683 → 0.284 [0.015, 0.739]
	// rival: 0.900 → 0.606 [0.305, 0.867]
}
