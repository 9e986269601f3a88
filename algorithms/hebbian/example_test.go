package hebbian_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/hebbian"
)

func Example() {
	m, err := hebbian.New(nil)
	if err != nil {
		panic(err)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

	// Twenty co-activations of two entities, one per day, with full tag and activation.
	var e hebbian.Edge
	for day := range 20 {
		e, err = m.Activate(e, 1, 1, now.AddDate(0, 0, day))
		if err != nil {
			panic(err)
		}
	}
	fmt.Printf("weight %.3f, importance %.2f, activations %d\n", e.Weight, e.Importance(), e.ActivationCount)

	// The same sleep LTP proposal of +0.10 moves this mature edge less than a fresh one.
	fresh := hebbian.Edge{Weight: e.Weight, Variance: 1, LastActivated: e.LastActivated}
	fmt.Printf("damped +0.10: mature %.4f, fresh %.4f\n", m.Damp(e, 0.10), m.Damp(fresh, 0.10))

	// Decay is computed at read time; important edges decay more slowly.
	later := e.LastActivated.AddDate(0, 0, 90)
	fmt.Printf("after 90 days: %.3f (prunable %v)\n", m.WeightAt(e, later), m.Prunable(e, later))
	// Output:
	// weight 0.749, importance 5.33, activations 20
	// damped +0.10: mature 0.0273, fresh 0.0667
	// after 90 days: 0.232 (prunable false)
}
