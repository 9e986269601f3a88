package pma_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/pma"
)

func ExampleNeuromodulatorEngine() {
	e, _ := pma.NewNeuromodulatorEngine(nil)
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	s := e.NewState("tenant-1", now)
	s, _ = e.Apply(s, pma.Event{Type: pma.EventReward, Magnitude: 1, At: now})
	for _, after := range []time.Duration{0, 5 * time.Minute, time.Hour} {
		l, _ := e.Levels(s, now.Add(after))
		o := pma.OutputsFor(l)
		fmt.Printf("+%-5v DA %.3f 5HT %.3f exploration %+.3f patience %.3f\n", after, l.DA, l.Serotonin, o.ExplorationBias, o.ConsolidationPatience)
	}
	// Output:
	// +0s    DA 0.750 5HT 0.425 exploration +0.250 patience 0.925
	// +5m0s  DA 0.636 5HT 0.459 exploration +0.136 patience 0.959
	// +1h0m0s DA 0.514 5HT 0.496 exploration +0.014 patience 0.996
}

func ExampleReconsolidationEngine_Plan() {
	e, _ := pma.NewReconsolidationEngine(nil)
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	memory := pma.Memory{
		ID: "m1", Context: "personal", Layer: pma.LayerSemantic, Stability: 7,
		Content: "Anna Schmidt is 34 years old, works as a nurse at the Charité hospital, " +
			"lives in Berlin with her partner Tom and their two cats, and her favourite color is blue.",
	}
	window := e.OpenWindow("m1", "personal", now) // a recall made the memory labile
	plan, _ := e.Plan(pma.ReconsolidationInput{
		Window: window, Memory: memory, Now: now.Add(2 * time.Minute), Neuro: pma.BaselineLevels(),
		NewContent: "Anna Schmidt is 34 years old, works as a nurse at the Charité hospital, " +
			"lives in Berlin with her partner Tom and their two cats, and her favourite color is green.",
	})
	fmt.Printf("%s (raw PE %.3f, effective %.3f, contradiction %s: %s → %s)\n", plan.Action, plan.RawPE, plan.EffectivePE,
		plan.Contradiction.Kind, plan.Contradiction.Old, plan.Contradiction.New)
	fmt.Println(plan.Update.Content)
	restore := pma.Rollback(plan.Snapshot)
	fmt.Println(restore.Restore.Content == memory.Content)
	// Output:
	// selective_edit (raw PE 0.269, effective 0.282, contradiction value: blue → green)
	// Anna Schmidt is 34 years old, works as a nurse at the Charité hospital, lives in Berlin with her partner Tom and their two cats, and her favourite color is green.
	// true
}

func ExampleEditText() {
	out, _ := pma.EditText("Anna is 34, lives in Berlin and likes jazz.", "Anna lives in Munich")
	fmt.Println(out)
	// Output: Anna is 34, lives in Munich and likes jazz.
}

func ExampleTripleCopyMemory() {
	m, _ := pma.NewTripleCopyMemory(nil)
	stored := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	tc, _ := m.Store("event-1", 1, stored)
	tc, _ = m.Promote(tc, 1, stored.Add(24*time.Hour)) // selected in the first night's sleep
	for _, d := range []int{0, 2, 30} {
		s := m.Strengths(tc, stored.Add(time.Duration(d)*24*time.Hour+15*time.Minute))
		r := m.Retrieve(tc, stored.Add(time.Duration(d)*24*time.Hour+15*time.Minute))
		fmt.Printf("day %2d: fast %.2f medium %.2f deep %.2f → %s (sudden %v)\n", d, s.Fast, s.Medium, s.Deep, s.Dominant, r.SuddenRecall)
	}
	// Output:
	// day  0: fast 0.94 medium 0.80 deep 0.00 → fast (sudden false)
	// day  2: fast 0.00 medium 0.69 deep 0.13 → medium (sudden false)
	// day 30: fast 0.00 medium 0.09 deep 0.98 → deep (sudden true)
}

func ExamplePriorityMap_Score() {
	p, _ := pma.NewPriorityMap(nil)
	calm, _ := p.Score(pma.PriorityInput{Salience: 0.3, Valence: 0.1, Relevance: 0.3, Goal: 0.3}, pma.BaselineLevels())
	alarm, _ := p.Score(pma.PriorityInput{Salience: 0.1, Valence: -0.9, Relevance: 0.1, Goal: 0.1}, pma.BaselineLevels())
	fmt.Printf("calm %.3f, alarming %.3f (fast path %v)\n", calm.Score, alarm.Score, alarm.FastPath)
	// Output: calm 0.250, alarming 0.500 (fast path true)
}

func ExampleStabilityProtector_Evaluate() {
	p, _ := pma.NewStabilityProtector(nil)
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	lock, _ := p.Evaluate("m1", pma.StabilityInput{AccessCount: 5, Confidence: 0.9, AgeDays: 90}, now)
	fmt.Printf("L %.3f ρ %.3f threshold %.3f locked %v\n", lock.Score, lock.Rigidity, lock.Threshold, lock.Locked)
	fmt.Println(lock.CanOverwrite(0.25), lock.CanOverwrite(0.9))
	// Output:
	// L 0.543 ρ 1.651 threshold 0.769 locked true
	// false true
}

func ExampleMetacognitiveMonitor_Assess() {
	m, _ := pma.NewMetacognitiveMonitor(nil)
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	var in pma.MetacogInput
	for i := range 20 {
		at := now.Add(-time.Duration(i) * time.Hour)
		in.Feedback = append(in.Feedback,
			pma.Feedback{At: at, Kind: pma.FeedbackConfirming, Accepted: i%5 != 0},    // 80 % accepted
			pma.Feedback{At: at, Kind: pma.FeedbackContradicting, Accepted: i%3 == 0}, // 35 % accepted
		)
	}
	in.Messages = []pma.Message{{At: now, Text: "Bitte sofort antworten, dringend!"}}
	a, _ := m.Assess(in, now)
	fmt.Printf("confirmation bias %.2f, urgency %.2f\n", a.Signals.ConfirmationBias, a.Signals.Urgency)
	for _, al := range a.Alerts {
		fmt.Println(al.Kind)
	}
	fmt.Println(pma.UrgencyCues("Need this ASAP, Frist ist bis morgen"))
	// Output:
	// confirmation bias 0.45, urgency 0.39
	// confirmation_bias
	// [asap bis morgen frist]
}

func ExampleCaptureRescue_Rescue() {
	s, _ := pma.NewCaptureRescue(nil)
	formed := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	tag, _, _ := s.Tag("weak-note", 0.2, formed)
	res, _ := s.Rescue(tag, 0.4, 0.2, []pma.STCDonor{
		{MemoryID: "strong-meeting", Confidence: 0.9, CreatedAt: formed.Add(10 * time.Minute), Related: true},
	}, formed.Add(8*time.Hour))
	fmt.Printf("rescued by %s: strength %.1f, decay rate %.1f\n", res.Tag.DonorID, res.Strength, res.DecayRate)
	// Output: rescued by strong-meeting: strength 0.7, decay rate 0.1
}
