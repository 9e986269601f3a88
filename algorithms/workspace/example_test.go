package workspace_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/workspace"
)

func ExampleAssembler_Assemble() {
	a, _ := workspace.NewAssembler(&workspace.Config{TotalTokens: 60})
	res, _ := a.Assemble(workspace.Input{
		Candidates: []workspace.Candidate{
			{Module: workspace.Core, Salience: 1, Items: []workspace.Item{{ID: "c1", Text: "The user is Sam."}}},
			{Module: workspace.Semantic, Salience: 0.9, Items: []workspace.Item{
				{ID: "f1", Text: "Anna lives in Munich.", Score: 0.9},
			}},
			{Module: workspace.Episodic, Salience: 0.4, Items: []workspace.Item{
				{ID: "e1", Text: "Sam met Anna in May.", Score: 0.4},
			}},
		},
		Previous: []workspace.Module{workspace.Episodic}, // hysteresis keeps it
	})
	fmt.Print(res.Text)
	fmt.Println("winners:", res.Winners, "used:", res.Used)
	// Output:
	// ## Core
	// - The user is Sam.
	//
	// ## Facts
	// - Anna lives in Munich.
	//
	// ## Episodes
	// - Sam met Anna in May.
	// winners: [episodic semantic] used: 22
}

func ExampleSalienceFromScores() {
	s, _ := workspace.SalienceFromScores([]float64{0.9, 0.5, 0.4, 0.1})
	fmt.Printf("%.2f\n", s)
	// Output: 0.81
}
