package review_test

import (
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/review"
)

func Example() {
	sched, err := review.NewScheduler(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	card := review.NewCard()
	card, _, _ = sched.Review(card, review.Good, now)      // learning step
	card, _, _ = sched.Review(card, review.Good, card.Due) // graduates
	fmt.Println(card.State, card.ScheduledDays, "days")

	office := []float32{0.9, 0.1, 0.0}
	sameOffice := []float32{0.85, 0.15, 0.0}
	holiday := []float32{0.0, 0.2, 0.9}
	familiar, log1, _ := sched.ReviewInContext(card, review.Good, card.Due, office, sameOffice)
	changed, log2, _ := sched.ReviewInContext(card, review.Good, card.Due, office, holiday)
	fmt.Printf("FSRS interval %.0f days\n", log1.BaseInterval.Hours()/24)
	fmt.Printf("familiar context: PE %.3f, ×%.2f → %.1f days\n", log1.PredictionError, log1.Multiplier, familiar.Due.Sub(card.Due).Hours()/24)
	fmt.Printf("changed context:  PE %.3f, ×%.2f → %.1f days\n", log2.PredictionError, log2.Multiplier, changed.Due.Sub(card.Due).Hours()/24)
	// Output:
	// review 4 days
	// FSRS interval 14 days
	// familiar context: PE 0.002, ×1.54 → 21.6 days
	// changed context:  PE 0.976, ×0.47 → 6.5 days
}
