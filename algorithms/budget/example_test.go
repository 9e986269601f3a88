package budget_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/budget"
)

func ExampleDecide() {
	d, _ := budget.Decide(budget.Item{
		Context: "work", Retrievals: 3, Confidence: 0.9, DaysSinceAccess: 81,
		Length: 2500, Entities: 4, EmbeddingVariance: 0.4,
	}, nil)
	fmt.Printf("%s gain=%.2f beta=%.1f cost=%.2f\n", d.Action, d.Gain, d.Beta, d.Cost)
	// Output: compress gain=0.42 beta=0.8 cost=0.38
}

func ExampleSelect() {
	sel, _ := budget.Select([]budget.Piece{
		{ID: "core", Text: "User name: Sam", Tokens: 4, Pinned: true},
		{ID: "a", Text: "Anna lives in Munich with two cats", Score: 0.9, Tokens: 8},
		{ID: "a2", Text: "Anna lives in Munich with two cats.", Score: 0.88, Tokens: 8},
		{ID: "t", Text: "Sam drinks green tea", Score: 0.4, Tokens: 5},
	}, budget.SelectConfig{Budget: 20})
	for _, c := range sel.Chosen {
		fmt.Println(c.Piece.ID)
	}
	fmt.Println("used", sel.Used, "skipped", sel.Skipped)
	// Output:
	// core
	// a
	// t
	// used 17 skipped [a2]
}
