package debate_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/debate"
)

func Example() {
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	newFact := debate.Fact{
		ID: "f9", Statement: "The API rate limit is 1000 requests per minute.",
		RecordedAt: now, Confidence: 0.85, SourceReliability: 0.9, Supports: 2,
	}
	stored := []debate.Fact{
		{ID: "f2", Statement: "The API rate limit is 100 requests per minute.", RecordedAt: now.AddDate(-1, 0, 0), Confidence: 0.6, SourceReliability: 0.5, Supports: 1},
		{ID: "f5", Statement: "The API has no rate limit.", RecordedAt: now.AddDate(0, -8, 0), Confidence: 0.4, SourceReliability: 0.3},
	}
	if !debate.ShouldDebate(len(stored), nil) {
		return
	}
	res, err := debate.Run(context.Background(), newFact, stored, now, nil, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict.Outcome, res.Verdict.Superseded)
	fmt.Printf("margin %.3f\n", res.Verdict.Margin)
	for _, r := range res.Verdict.Reasons {
		fmt.Println("-", r)
	}
	// Output:
	// supersede [f2 f5]
	// margin 0.440
	// - new fact f9 leads every contradicted fact by at least the supersede margin 0.10; its smallest lead is 0.440 over f2
	// - recency favours the new fact (1.00 vs 0.06, +0.235)
	// - source reliability favours the new fact (0.90 vs 0.50, +0.100)
	// - confidence favours the new fact (0.85 vs 0.60, +0.075)
	// - support favours the new fact (0.40 vs 0.25, +0.030)
}
