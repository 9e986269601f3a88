package curiosity_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/curiosity"
)

func ExampleScore() {
	t0 := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
	log := []curiosity.Query{
		{Text: "kubernetes ingress configuration", At: t0, TopScore: 0.1},
		{Text: "coffee order", At: t0.Add(time.Hour), TopScore: 0.9},
		{Text: "kubernetes ingress TLS", At: t0.Add(2 * time.Hour), TopScore: 0.2},
		{Text: "kubernetes ingress timeout", At: t0.Add(3 * time.Hour)},
	}
	topics, _ := curiosity.GroupQueries(log, nil)
	// The caller looks up facts per topic (here: none about kubernetes).
	stats := []curiosity.Stats{{Facts: 0}, {Facts: 12, MeanConfidence: 0.9}}
	gaps, _ := curiosity.Score(log, topics, stats, nil)
	for _, g := range curiosity.Top(gaps, 5) {
		fmt.Printf("%-26s gap=%.2f %s\n", g.Label, g.Score, g.Action)
	}
	// Output:
	// ingress kubernet configur  gap=1.00 ask_user
	// coffe order                gap=0.15 monitor
}
