package coordinator_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// The routing table, with English and German examples, stored against a real database.
func TestStoreRoutingTable(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	sess := uuid.New()
	occ := t0.Add(-48 * time.Hour)
	tests := []struct {
		name  string
		in    coordinator.StoreInput
		layer coordinator.Layer
		kind  string
		route string
	}{
		{"how to en", coordinator.StoreInput{Content: "How to deploy: build the image, then push it"}, coordinator.LayerProcedural, "skill", "procedural_how_to_en"},
		{"step en", coordinator.StoreInput{Content: "Step 1: open the terminal. Step 2: run make"}, coordinator.LayerProcedural, "skill", "procedural_how_to_en"},
		{"wie man de", coordinator.StoreInput{Content: "So richtet man den Drucker ein: wie man den Treiber installiert"}, coordinator.LayerProcedural, "skill", "procedural_how_to_de"},
		{"schritt de", coordinator.StoreInput{Content: "Schritt 2: den Stecker ziehen"}, coordinator.LayerProcedural, "skill", "procedural_how_to_de"},
		{"identity en", coordinator.StoreInput{Content: "My name is Alice and I like tea"}, coordinator.LayerSemantic, "identity", "identity_en"},
		{"i am a en", coordinator.StoreInput{Content: "I am a software engineer"}, coordinator.LayerSemantic, "identity", "identity_en"},
		{"ich heiße de", coordinator.StoreInput{Content: "Ich heiße Anna"}, coordinator.LayerSemantic, "identity", "identity_de"},
		{"emotion en", coordinator.StoreInput{Content: "I was absolutely devastated and terrified when the accident happened!!!"}, coordinator.LayerEpisodic, "episode", "strong_emotion"},
		{"emotion de", coordinator.StoreInput{Content: "Ich war so unglaublich glücklich und begeistert über die Hochzeit!!"}, coordinator.LayerEpisodic, "episode", "strong_emotion"},
		{"yesterday en", coordinator.StoreInput{Content: "Yesterday I visited the museum"}, coordinator.LayerEpisodic, "episode", "temporal_anchor"},
		{"letzte woche de", coordinator.StoreInput{Content: "Letzte Woche war ich im Kino"}, coordinator.LayerEpisodic, "episode", "temporal_anchor"},
		{"occurred_at", coordinator.StoreInput{Content: "Met Bob for coffee", OccurredAt: &occ}, coordinator.LayerEpisodic, "episode", "temporal_anchor"},
		{"default fact en", coordinator.StoreInput{Content: "Water boils at 100 degrees Celsius"}, coordinator.LayerSemantic, "fact", "default_fact"},
		{"default fact de", coordinator.StoreInput{Content: "Wasser kocht bei 100 Grad"}, coordinator.LayerSemantic, "fact", "default_fact"},
		{"explicit layer wins", coordinator.StoreInput{Content: "How to make tea", Layer: coordinator.LayerEpisodic}, coordinator.LayerEpisodic, "episode", "explicit"},
		{"explicit kind", coordinator.StoreInput{Content: "Maybe the moon is cheese", Kind: "hypothesis"}, coordinator.LayerSemantic, "hypothesis", "default_fact"},
		{"core label", coordinator.StoreInput{Content: "Alice", CoreLabel: "user.name"}, coordinator.LayerCore, "identity", "core_label"},
		{"session", coordinator.StoreInput{Content: "How to make tea", SessionID: &sess}, coordinator.LayerShortTerm, "interaction", "session"},
	}
	for _, tt := range tests {
		tt.in.TenantID = "routing"
		res, err := b.co.Store(ctx, tt.in)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.layer, res.Layer, tt.name)
		require.Equal(t, tt.kind, res.Kind, tt.name)
		require.Equal(t, tt.route, res.Route, tt.name)
	}
}

func TestExtractFact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text              string
		ok                bool
		subj, attr, value string
	}{
		{"Anna's favourite color is blue.", true, "anna", "favourite color", "blue"},
		{"My favourite food is pizza", true, "user", "favourite food", "pizza"},
		{"Bob lives in Berlin", true, "bob", "residence", "berlin"},
		{"I live in Munich", true, "user", "residence", "munich"},
		{"Carol works at Acme", true, "carol", "employer", "acme"},
		{"Annas Lieblingsfarbe ist Blau", true, "anna", "lieblingsfarbe", "blau"},
		{"Bob wohnt in Hamburg", true, "bob", "residence", "hamburg"},
		{"Ich wohne in Köln", true, "user", "residence", "köln"},
		{"Meine Lieblingsfarbe ist Grün", true, "user", "lieblingsfarbe", "grün"},
		{"Die Telefonnummer von Anna ist 123", true, "anna", "telefonnummer", "123"},
		{"The weather was nice. Bob lives in Rome", false, "", "", ""},
		{"Water boils at 100 degrees", false, "", "", ""},
	}
	for _, tt := range tests {
		f, ok := coordinator.ExtractFact(tt.text)
		require.Equal(t, tt.ok, ok, tt.text)
		if ok {
			require.Equal(t, []string{tt.subj, tt.attr, tt.value}, []string{f.Subject, f.Attribute, f.Value}, tt.text)
		}
	}
}
