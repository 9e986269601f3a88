package emotion_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/emotion"
)

func Example() {
	tagger, err := emotion.NewTagger(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, text := range []string{
		"The meeting is at 3pm.",
		"We got married today, the happiest day of my life!",
		"Das ist nicht gut.",
	} {
		tag, _ := tagger.Tag(text)
		fmt.Printf("%s V=%+.2f A=%.2f S=%.2f m_emo=%.2f\n", tag.Lang, tag.Valence, tag.Arousal, tag.Significance, tag.DecayMultiplier)
		for _, s := range tag.Signals {
			fmt.Printf("  %s %q (%s) negated=%v\n", s.Kind, s.Word, s.Via, s.Negated)
		}
	}
	// Output:
	// en V=+0.00 A=0.00 S=0.00 m_emo=1.00
	// en V=+0.54 A=0.57 S=0.85 m_emo=2.70
	//   significance "married" (exact) negated=false
	//   positive "happiest" (inflection) negated=false
	//   exclamation "1×!" () negated=false
	// de V=-0.23 A=0.15 S=0.00 m_emo=1.47
	//   positive "gut" (exact) negated=true
}
