package embed

import (
	"context"
	"testing"
)

// benchTexts are short memory-like texts in English and German, 6–20 words
// each, the length of a chat turn.
var benchTexts = []string{
	"I went to a support group yesterday and it was so powerful.",
	"Melanie painted a sunrise over the lake last summer.",
	"Can you remind me what time the dentist appointment is on Friday?",
	"My sister just adopted two cats from the shelter downtown.",
	"We decided to move the team offsite to the second week of March.",
	"The deployment failed because the database migration timed out.",
	"I'm training for a half marathon and running four times a week.",
	"She recommended a book about the history of the Roman empire.",
	"Ich habe gestern meine Großmutter im Krankenhaus besucht.",
	"Das Meeting wurde auf nächsten Dienstag um zehn Uhr verschoben.",
	"Wir fahren im Sommer mit dem Fahrrad an den Bodensee.",
	"Der Server antwortet langsam, seit das Update eingespielt wurde.",
	"Thanks! Pottery class has been a great way to relax after work.",
	"The kids loved the science museum, especially the dinosaur exhibit.",
	"Remember to water the tomato plants while I'm away this weekend.",
	"Meine Kollegin empfiehlt ein Restaurant in der Altstadt von Zürich.",
}

// BenchmarkHash measures the [Hash] embedder at dimension 768, in batches of
// 64 short texts and one text at a time; the texts/s metric is the throughput
// on one core (the target is at least 20,000).
func BenchmarkHash(b *testing.B) {
	h, err := NewHash(DimDefault)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	batch := make([]string, 64)
	for i := range batch {
		batch[i] = benchTexts[i%len(benchTexts)]
	}
	b.Run("batch64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Embed(ctx, batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "texts/s")
	})
	b.Run("single", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := h.Embed(ctx, benchTexts[i:i+1]); err != nil {
				b.Fatal(err)
			}
			i = (i + 1) % len(benchTexts)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "texts/s")
	})
}
