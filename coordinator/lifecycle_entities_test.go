package coordinator_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

func TestExtractEntities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string // "normalized/type"
	}{
		{"speaker prefix", "Caroline: I went to a support group yesterday.", []string{"caroline/person"}},
		{"speaker multiword", "Anna Schmidt: Ich war gestern in Berlin.", []string{"anna schmidt/person", "berlin/place"}},
		{"multiword name", "Yesterday I met Melanie Brooks at the gym.", []string{"melanie brooks/person"}},
		{"place after preposition", "We moved to a flat in Hamburg last May.", []string{"hamburg/place"}},
		{"dates and numbers excluded", "On Monday, 12 March 2023 we paid 500 euros.", nil},
		{"sentence start needs a cue", "Lunch was good. The weather was fine.", nil},
		{"sentence start with person verb", "Melanie said she loves painting.", []string{"melanie/person"}},
		{"sentence start seen inside", "Jon likes jazz. I saw Jon at the bar.", []string{"jon/person"}},
		{"title", "I talked to Dr. Meyer about it.", []string{"meyer/person"}},
		{"relation cue", "My friend Lea visited us.", []string{"lea/person"}},
		{"connector", "She works at the Bank of America in New York.", []string{"bank of america/thing", "new york/place"}},
		{"possessive", "We went to Anna's party.", []string{"anna/thing"}},
		{"german common nouns ignored", "Ich habe gestern einen Hund gekauft und das Auto gewaschen.", nil},
		{"german name cue", "Ich fahre morgen mit Lukas nach München.", []string{"lukas/person", "münchen/place"}},
		{"place suffix", "Our office is on the Hauptstraße.", []string{"hauptstraße/place"}},
		{"empty", "", nil},
		{"invalid utf8", "Anna\xff: hi", []string{"anna/person"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := []string{}
			for _, e := range coordinator.ExtractEntities(tt.text) {
				got = append(got, e.Normalized+"/"+e.Type)
				require.LessOrEqual(t, e.End, len(tt.text))
				require.Less(t, e.Start, e.End)
			}
			if tt.want == nil {
				tt.want = []string{}
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestExtractEntitiesCap(t *testing.T) {
	t.Parallel()
	text := ""
	for i := 0; i < 40; i++ {
		text += fmt.Sprintf("I met Person%c Name%c. ", 'A'+rune(i%26), 'A'+rune(i/26))
	}
	require.Len(t, coordinator.ExtractEntities(text), coordinator.MaxEntitiesPerText)
}

func ExampleExtractEntities() {
	for _, e := range coordinator.ExtractEntities("Caroline: I met Melanie Brooks in Berlin.") {
		fmt.Println(e.Normalized, e.Type)
	}
	// Output:
	// caroline person
	// melanie brooks person
	// berlin place
}
