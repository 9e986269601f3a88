package retrieval_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/retrieval"
)

func ExampleClassify() {
	now := time.Date(2024, 5, 15, 14, 30, 0, 0, time.UTC)
	for _, q := range []string{"What did I do two months ago?", "Was habe ich letzte Woche gemacht?", "How do I reset the router?"} {
		c := retrieval.Classify(q, now)
		fmt.Println(c.Class, c.Lang)
		for _, d := range c.Dates {
			fmt.Printf("  %q → %s .. %s\n", d.Text, d.Range.From.Format(time.DateOnly), d.Range.To.Format(time.DateOnly))
		}
	}
	// Output:
	// temporal en
	//   "two months ago" → 2024-03-01 .. 2024-04-01
	// temporal de
	//   "letzte woche" → 2024-05-06 .. 2024-05-13
	// procedural en
}

func ExampleRank() {
	cands := []retrieval.Candidate{
		{ID: "fact", Layer: retrieval.LayerSemantic, Text: "Anna lives in Munich", Cosine: 0.8, BM25: 1.0, Retrievability: 1},
		{ID: "event", Layer: retrieval.LayerEpisodic, Text: "Visited Anna in Munich", Cosine: 0.7, BM25: 1.0, Retrievability: 1},
		{ID: "other", Layer: retrieval.LayerSemantic, Text: "Tea is hot", Cosine: 0.1, BM25: 0, Retrievability: 1},
	}
	for _, class := range []retrieval.QueryClass{retrieval.ClassFactual, retrieval.ClassTemporal} {
		res, _ := retrieval.Rank(class, cands, nil)
		fmt.Printf("%s: %s %.3f, %s %.3f\n", class, res[0].ID, res[0].Score, res[1].ID, res[1].Score)
	}
	// Output:
	// factual: fact 1.800, event 0.957
	// temporal: event 1.914, fact 1.000
}
