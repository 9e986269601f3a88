package consolidation_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zenbrain/zb/algorithms/consolidation"
)

func ExampleConsolidate() {
	day := func(d int) time.Time { return time.Date(2024, 5, d, 9, 0, 0, 0, time.UTC) }
	episodes := []consolidation.Episode{
		{ID: "e1", Text: "Hiked the Zugspitze with Anna", Embedding: []float64{1, 0.1}, Entities: []string{"anna", "zugspitze"}, OccurredAt: day(1)},
		{ID: "e2", Text: "Anna and I climbed the Zugspitze again", Embedding: []float64{0.95, 0.15}, Entities: []string{"anna", "zugspitze"}, OccurredAt: day(8)},
		{ID: "e3", Text: "Dentist check-up", Embedding: []float64{0.1, 1}, Entities: []string{"dentist"}, OccurredAt: day(3)},
	}
	schemas, _ := consolidation.Consolidate(context.Background(), episodes, consolidation.Config{})
	for _, s := range schemas {
		fmt.Println(s.SharedEntities, s.SourceIDs, s.From.Format(time.DateOnly), s.To.Format(time.DateOnly))
		fmt.Println(s.Statement)
	}
	// Output:
	// [anna zugspitze] [e1 e2] 2024-05-01 2024-05-08
	// Hiked the Zugspitze with Anna
}
