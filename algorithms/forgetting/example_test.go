package forgetting_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/forgetting"
)

func Example() {
	model, err := forgetting.NewModel(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	created := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

	// A strongly emotional episode: m_emo = 1 + 2·0.9 = 2.8.
	mEmo, _ := forgetting.EmotionalMultiplier(-0.9, 0.6, 0.3)
	trace, _ := model.NewTrace(forgetting.LayerEpisodic, created, mEmo)

	r, _ := trace.Retrievability(created.Add(2 * forgetting.Day))
	fade, _, _ := trace.FadeAt(forgetting.ArchiveThreshold)
	fmt.Printf("m_emo %.1f, R after 2 days %.3f, fades at %s\n", mEmo, r, fade.Format(time.DateTime))

	// Recalling it after 2 days grows its stability (spacing effect).
	trace, _ = model.Recall(trace, created.Add(2*forgetting.Day))
	fmt.Printf("S after recall: %.2f days\n", trace.Stability.Hours()/24)
	// Output:
	// m_emo 2.8, R after 2 days 0.490, fades at 2025-03-07 19:44:01
	// S after recall: 1.82 days
}
