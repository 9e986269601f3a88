package locomo_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/zenbrain/zb/bench/locomo"
)

// tiny is a two-session conversation in the LoCoMo format, with one evidence
// defect ("D:2:1" means D2:1).
const tiny = `[{"sample_id": "conv-1",
 "conversation": {"speaker_a": "Ann", "speaker_b": "Bob",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I started learning the violin."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "I ran a marathon in Berlin."}],
  "session_2_date_time": "9:00 am on 20 May, 2023",
  "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "My violin teacher is called Clara."}]},
 "qa": [{"question": "Who teaches Ann the violin?", "answer": "Clara", "evidence": ["D:2:1"], "category": 4},
        {"question": "Where did Bob run a marathon?", "answer": "Berlin", "evidence": ["D1:2"], "category": 4}]}]`

// Example runs the BM25 baseline on a tiny conversation in both protocols.
// "Who teaches Ann the violin?" shares "Ann" and "violin" with both of Ann's
// turns, and "teacher" does not stem to "teach": the evidence comes second
// (MRR (1/2 + 1)/2).
func Example() {
	ds, err := locomo.Parse(strings.NewReader(tiny), "tiny.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	bm, err := locomo.NewBM25System(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := locomo.Run(context.Background(), ds, []locomo.System{bm}, locomo.Options{Mode: locomo.Both})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, res := range rep.Results {
		all, _ := res.Group(locomo.GroupAll)
		fmt.Printf("%s %s: %d questions, R@5 %.2f, MRR %.2f\n", res.Mode, res.System, all.Questions, all.Recall5, all.MRR)
	}
	// Output:
	// per-conversation bm25: 2 questions, R@5 1.00, MRR 0.75
	// shared-pool bm25: 2 questions, R@5 1.00, MRR 0.75
}

func ExampleCleanEvidence() {
	turns := map[string]bool{"D8:6": true, "D9:17": true, "D11:26": true, "D30:5": true}
	ids, fixes := locomo.CleanEvidence([]string{"D8:6; D9:17", "D:11:26", "(D30:05)", "D", "D10:19"},
		func(id string) bool { return turns[id] })
	fmt.Println(ids)
	for _, f := range fixes {
		fmt.Printf("%s %q→%q\n", f.Kind, f.Raw, f.Result)
	}
	// Output:
	// [D8:6 D9:17 D11:26 D30:5]
	// split "D8:6; D9:17"→"D8:6 D9:17"
	// normalized "D:11:26"→"D11:26"
	// parentheses "(D30:05)"→"D30:05"
	// normalized "D30:05"→"D30:5"
	// bare_d "D"→""
	// unknown_turn "D10:19"→""
}

func ExampleScoreHits() {
	// Evidence D1:1 and D2:3; the system found D2:3 at rank 2 and, through a
	// derived memory, D1:1 at rank 4.
	hits := []locomo.Hit{
		{SourceIDs: []string{"D5:1"}},
		{SourceIDs: []string{"D2:3"}},
		{SourceIDs: []string{"D7:2"}},
		{SourceIDs: []string{"D1:1", "D1:2"}},
		{SourceIDs: []string{"D9:9"}},
	}
	s, err := locomo.ScoreHits([]string{"D1:1", "D2:3"}, hits, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("R@5 %.2f  P@5 %.2f  MRR %.2f  NDCG@5 %.4f\n", s.Recall5, s.P5, s.MRR, s.NDCG5)
	// Output:
	// R@5 1.00  P@5 0.40  MRR 0.50  NDCG@5 0.6509
}

func ExampleBuildPlan() {
	ds, err := locomo.Parse(strings.NewReader(tiny), "tiny.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	plans, err := locomo.BuildPlan(ds, locomo.SharedPool)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := plans[0]
	for _, m := range p.Messages {
		fmt.Println(m.OccurredAt.Format("2006-01-02 15:04:05"), m.SessionKey, m.DiaID, m.Text)
	}
	fmt.Println("query time", p.Now.Format("2006-01-02 15:04:05"), "evidence", p.Queries[0].Evidence)
	// Output:
	// 2023-05-08 13:56:00 conv-1/session_1 conv-1/D1:1 Ann: I started learning the violin.
	// 2023-05-08 13:56:01 conv-1/session_1 conv-1/D1:2 Bob: I ran a marathon in Berlin.
	// 2023-05-20 09:00:00 conv-1/session_2 conv-1/D2:1 Ann: My violin teacher is called Clara.
	// query time 2023-05-20 09:00:01 evidence [conv-1/D2:1]
}
