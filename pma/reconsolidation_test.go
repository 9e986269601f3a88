package pma

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newRecon(t *testing.T) *ReconsolidationEngine {
	t.Helper()
	e, err := NewReconsolidationEngine(nil)
	require.NoError(t, err)
	return e
}

// labelledPair is one entry of testdata/reconsolidation_pairs.json. The
// pairs were written for this test: each is labelled with the mode the
// design's definitions give it (restatement → confirmed; one detail changed
// or added in an otherwise identical statement, or a value changed in a long
// memory → selective_edit; a short fact updated or extended with a new fact
// → integration; another event or topic, or a reversal of a short fact →
// new_episode) and whether it contains a contradiction. Pairs noted "HARD"
// are restatements that token Jaccard cannot recognise; they are expected
// misses.
type labelledPair struct {
	Old           string `json:"old"`
	New           string `json:"new"`
	Mode          Mode   `json:"mode"`
	Contradiction bool   `json:"contradiction"`
	Note          string `json:"note"`
}

func loadPairs(t *testing.T) []labelledPair {
	t.Helper()
	b, err := os.ReadFile("testdata/reconsolidation_pairs.json")
	require.NoError(t, err)
	var pairs []labelledPair
	require.NoError(t, json.Unmarshal(b, &pairs))
	return pairs
}

func TestReconsolidationLabelledSet(t *testing.T) {
	t.Parallel()
	e := newRecon(t)
	pairs := loadPairs(t)
	require.GreaterOrEqual(t, len(pairs), 100)
	perMode := map[Mode]int{}
	correct, tp, fp, fn := 0, 0, 0, 0
	var golden bytes.Buffer
	fmt.Fprintln(&golden, "# rawPE effPE(baseline) mode contradiction | old | new")
	for _, p := range pairs {
		perMode[p.Mode]++
		raw, c := e.PredictionError(p.Old, p.New)
		eff := EffectivePE(raw, BaselineLevels())
		got := e.ModeFor(eff, 1)
		if got == p.Mode {
			correct++
		} else {
			t.Logf("mode miss: %q → %q: want %s, got %s (raw %.3f, eff %.3f) %s", p.Old, p.New, p.Mode, got, raw, eff, p.Note)
		}
		switch {
		case c.Detected() && p.Contradiction:
			tp++
		case c.Detected():
			fp++
			t.Errorf("false contradiction %+v: %q → %q", c, p.Old, p.New)
		case p.Contradiction:
			fn++
			t.Logf("contradiction missed: %q → %q %s", p.Old, p.New, p.Note)
		}
		fmt.Fprintf(&golden, "%.4f %.4f %-14s %-8s | %s | %s\n", raw, eff, got, c.Kind, p.Old, p.New)
	}
	for _, m := range []Mode{ModeConfirmed, ModeSelectiveEdit, ModeIntegration, ModeNewEpisode} {
		require.GreaterOrEqual(t, perMode[m], 20, "mode %s covered", m)
	}
	acc := float64(correct) / float64(len(pairs))
	precision := float64(tp) / float64(tp+fp)
	recall := float64(tp) / float64(tp+fn)
	t.Logf("%d pairs: mode accuracy %.3f; contradictions precision %.3f recall %.3f (%d/%d)", len(pairs), acc, precision, recall, tp, tp+fn)
	require.GreaterOrEqual(t, acc, 0.95)
	require.Equal(t, 1.0, precision)
	requireGolden(t, "reconsolidation_pairs.golden", golden.Bytes())
}

func TestEditText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
		hunks                int
	}{
		{"color", "Anna's favourite color is blue.", "Anna's favourite color is green", "Anna's favourite color is green.", 1},
		{
			"color in a long memory",
			"Anna is 34, works as a nurse, and her favourite color is blue; she has two cats.",
			"Anna is 34, works as a nurse, and her favourite color is green; she has two cats.",
			"Anna is 34, works as a nurse, and her favourite color is green; she has two cats.", 1,
		},
		{
			"city from a partial statement", "Anna is 34, lives in Berlin and likes jazz.", "Anna lives in Munich",
			"Anna is 34, lives in Munich and likes jazz.", 1,
		},
		{"city", "Anna lives in Berlin.", "Anna lives in Munich.", "Anna lives in Munich.", 1},
		{"German city with an inserted word", "Anna wohnt in Berlin.", "Anna wohnt jetzt in München", "Anna wohnt jetzt in München.", 2},
		{"insertion", "Anna lives in Berlin.", "Anna lives in central Berlin.", "Anna lives in central Berlin.", 1},
		{"leading insertion", "lives in Berlin.", "Anna lives in Berlin", "Anna lives in Berlin.", 1},
		{"omission keeps the old words", "Anna lives in central Berlin.", "Anna lives in Berlin", "Anna lives in central Berlin.", 0},
		{"negation", "Anna likes coffee.", "Anna doesn't like coffee", "Anna doesn't like coffee.", 1},
		{"number", "The budget is 5000 euros (approved).", "The budget is 7000 euros", "The budget is 7000 euros (approved).", 1},
		{"nothing shared", "Anna lives in Berlin.", "  The report is due Friday. ", "The report is due Friday.", 1},
		{"identical", "Same text.", "Same text.", "Same text.", 0},
		{"empty new", "Old text.", "  ", "Old text.", 0},
		{"typographic apostrophe", "Anna’s car is red.", "Anna's car is blue", "Anna’s car is blue.", 1},
		// Paired delimiters touching a replaced or inserted span come from the new text.
		{
			"bracketed prefix", "[a1] Jon: Appreciate your advice… it means a lot!",
			"[b2] (again) Jon: Appreciate your advice… it means a lot!", "[b2] (again) Jon: Appreciate your advice… it means a lot!", 1,
		},
		{"quoted word", `She said "yes" to the offer.`, `She said "no" to the offer`, `She said "no" to the offer.`, 1},
		{"quotes to brackets", `She said "yes" to the offer.`, `She said (no) to the offer`, `She said (no) to the offer.`, 1},
		{"brackets the new text lacks stay", "The budget is (5000) euros.", "The budget is 7000 euros", "The budget is (7000) euros.", 1},
		{"bracketed insertion after punctuation", "Jon: Appreciate it.", "Jon: (really) Appreciate it", "Jon: (really) Appreciate it.", 1},
		{"insertion before punctuation", "blue, red and green.", "blue sky, red and green", "blue sky, red and green.", 1},
		{"leading bracketed insertion", "[a1] Jon agrees.", "«Note» [a1] Jon agrees", "«Note» [a1] Jon agrees.", 1},
		{"trailing bracketed insertion", "Jon agrees.", "Jon agrees (mostly)", "Jon agrees (mostly).", 1},
		{"German quotes", "Er sagte „ja“ dazu.", "Er sagte „nein“ dazu", "Er sagte „nein“ dazu.", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, hunks := EditText(tt.old, tt.new)
			require.Equal(t, tt.want, got)
			require.Len(t, hunks, tt.hunks)
			for _, h := range hunks {
				if h.Kind != HunkWhole {
					require.Equal(t, tt.old[h.Start:h.End], h.Old)
				}
			}
		})
	}
}

func TestMergeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"append a new fact", "Tom works at Siemens.", "He plays chess on Sundays.", "Tom works at Siemens. He plays chess on Sundays."},
		{"extend in place", "Tom works at Siemens.", "Tom works at Siemens as a software engineer.", "Tom works at Siemens as a software engineer."},
		{
			"update in place, append the rest", "Anna lives in Berlin. She has a cat.", "Anna lives in Munich. She started a new job.",
			"Anna lives in Munich. She has a cat. She started a new job.",
		},
		{"already known", "Anna lives in Berlin. She has a cat.", "She has a cat.", "Anna lives in Berlin. She has a cat."},
		{"missing full stop", "Die Präsentation ist fertig", "Die Zahlen für Q3 fehlen noch.", "Die Präsentation ist fertig. Die Zahlen für Q3 fehlen noch."},
		{"empty old", "", "New fact.", "New fact."},
		{"both empty", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, MergeText(tt.old, tt.new))
		})
	}
}

func TestDetectContradiction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		old, new string
		want     Contradiction
	}{
		{"Anna's favourite color is blue.", "Anna's favourite color is green.", Contradiction{ContradictionValue, "blue", "green"}},
		{"Anna lives in Berlin.", "Anna lives in Munich.", Contradiction{ContradictionValue, "Berlin", "Munich"}},
		{"Anna is 34, lives in Berlin and likes jazz.", "Anna lives in Munich.", Contradiction{ContradictionValue, "Berlin", "Munich"}},
		{"Annas Lieblingsfarbe ist blau.", "Annas Lieblingsfarbe ist grün.", Contradiction{ContradictionValue, "blau", "grün"}},
		{"Der Termin ist am Dienstag.", "Der Termin ist am Mittwoch.", Contradiction{ContradictionValue, "Dienstag", "Mittwoch"}},
		{"The room is 4.12.", "The room is 4.14.", Contradiction{ContradictionValue, "12", "14"}},
		{"Jan has two kids.", "Jan has three kids.", Contradiction{ContradictionValue, "two", "three"}},
		{"Anna eats meat.", "Anna does not eat meat.", Contradiction{Kind: ContradictionNegation, New: "not"}},
		{"Anna isn't vegan.", "Anna is vegan.", Contradiction{Kind: ContradictionNegation, Old: "isn't"}},
		{"Lea trinkt Kaffee.", "Lea trinkt keinen Kaffee.", Contradiction{Kind: ContradictionNegation, New: "keinen"}},
		{"Tom likes jazz.", "Tom dislikes jazz.", Contradiction{ContradictionAntonym, "likes", "dislikes"}},
		{"Das Büro ist samstags geöffnet.", "Das Büro ist samstags geschlossen.", Contradiction{ContradictionAntonym, "geöffnet", "geschlossen"}},
		{"Max kommt immer zu spät.", "Max kommt nie zu spät.", Contradiction{Kind: ContradictionNegation, New: "nie"}},
		// Not contradictions.
		{"Anna lives in Berlin.", "Anna lives in central Berlin.", Contradiction{}},
		{"Tom lives in Berlin.", "Anna lives in Munich.", Contradiction{}},
		{"Anna is happy.", "Anna is a teacher.", Contradiction{}},
		{"Anna likes tea.", "Anna likes coffee.", Contradiction{}},
		{"The library opens at 9.", "The library opens at 10 on weekends.", Contradiction{}},
		{"Tom eats meat.", "Anna does not eat meat.", Contradiction{}},
		{"Anna lives in Berlin. She does not eat meat.", "Anna lives in Berlin.", Contradiction{}},
		{"Anna likes coffee.", "Anna doesn't like tea.", Contradiction{}},
		{"", "Anything at all.", Contradiction{}},
	}
	for _, tt := range tests {
		t.Run(tt.old+" → "+tt.new, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, DetectContradiction(tt.old, tt.new))
		})
	}
}

func TestModeForBandsAndResistance(t *testing.T) {
	t.Parallel()
	e := newRecon(t)
	tests := []struct {
		pe, r float64
		want  Mode
	}{
		{0, 1, ModeConfirmed},
		{0.0999, 1, ModeConfirmed},
		{0.1, 1, ModeSelectiveEdit},
		{0.2999, 1, ModeSelectiveEdit},
		{0.3, 1, ModeIntegration},
		{0.6999, 1, ModeIntegration},
		{0.7, 1, ModeNewEpisode},
		{1, 1, ModeNewEpisode},
		{math.NaN(), 1, ModeNewEpisode},
		// Procedural (1.5): confirmed < 0.15, integration < 0.467.
		{0.14, 1.5, ModeConfirmed},
		{0.2, 1.5, ModeSelectiveEdit},
		{0.45, 1.5, ModeIntegration},
		{0.5, 1.5, ModeNewEpisode},
		// Core (2): confirmed < 0.2, integration < 0.35.
		{0.19, 2, ModeConfirmed},
		{0.25, 2, ModeSelectiveEdit},
		{0.34, 2, ModeIntegration},
		{0.36, 2, ModeNewEpisode},
		// Extreme resistance keeps the bands ordered.
		{0.29, 10, ModeConfirmed},
		{0.31, 10, ModeNewEpisode},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, e.ModeFor(tt.pe, tt.r), "PE %v, r %v", tt.pe, tt.r)
	}
	require.Equal(t, 1.5, DefaultResistance()[LayerProcedural])
	require.Equal(t, 2.0, DefaultResistance()[LayerCore])
	require.Equal(t, 1.0, DefaultResistance()[LayerSemantic])
}

func TestEffectivePE(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  float64
		l    Levels
		want float64
	}{
		{0.5, BaselineLevels(), 0.5 * 1.05},
		{0.5, Levels{NE: 1, Serotonin: 0}, 0.65},
		{0.5, Levels{NE: 0, Serotonin: 1}, 0.4},
		{0.9, Levels{NE: 1, Serotonin: 0}, 1},
		{0, Levels{NE: 1}, 0},
	}
	for _, tt := range tests {
		require.InDelta(t, tt.want, EffectivePE(tt.raw, tt.l), 1e-12)
	}
}

type planFixture struct {
	e      *ReconsolidationEngine
	memory Memory
	window LabilityWindow
}

func setupPlan(t *testing.T, layer Layer, content string) planFixture {
	t.Helper()
	e := newRecon(t)
	m := Memory{
		ID: "m1", Context: "personal", Layer: layer, Content: content,
		Metadata:  json.RawMessage(`{"source":"chat","tags":["a","b"]}`),
		SourceIDs: []string{"s1"}, Stability: 7, ConfidenceAlpha: 3, ConfidenceBeta: 1,
		UpdatedAt: t0.Add(-48 * time.Hour),
	}
	return planFixture{e: e, memory: m, window: e.OpenWindow("m1", "personal", t0)}
}

func (f planFixture) input(newContent string) ReconsolidationInput {
	return ReconsolidationInput{
		Window: f.window, Memory: f.memory, NewContent: newContent, NewSourceIDs: []string{"s2"},
		Neuro: BaselineLevels(), Now: t0.Add(3 * time.Minute),
	}
}

const longMemory = "Anna Schmidt is 34 years old, works as a nurse at the Charité hospital, lives in Berlin with her partner Tom and their two cats, and her favourite color is blue."

func TestPlanModes(t *testing.T) {
	t.Parallel()
	t.Run("confirmed strengthens", func(t *testing.T) {
		t.Parallel()
		f := setupPlan(t, LayerSemantic, "Paula is allergic to peanuts and shellfish.")
		p, err := f.e.Plan(f.input("Paula is allergic to shellfish and peanuts!"))
		require.NoError(t, err)
		require.Equal(t, ModeConfirmed, p.Action)
		require.NotNil(t, p.Update)
		require.Nil(t, p.Create)
		require.InDelta(t, 7*1.2, p.Update.Stability, 1e-12, "×(1 + 0.2·LearningRate) at baseline")
		require.Equal(t, 4.0, p.Update.ConfidenceAlpha)
		require.Equal(t, 1.0, p.Update.ConfidenceBeta)
		require.Equal(t, f.memory.Content, p.Update.Content)
		require.Equal(t, []string{"s1", "s2"}, p.Update.SourceIDs)
		// Aroused (NE 1): learning rate 1.5, growth ×1.3.
		in := f.input("Paula is allergic to shellfish and peanuts!")
		in.Neuro = Levels{DA: 0.5, NE: 1, Serotonin: 1, ACh: 0.5}
		p, err = f.e.Plan(in)
		require.NoError(t, err)
		require.InDelta(t, 7*1.3, p.Update.Stability, 1e-12)
	})
	t.Run("selective edit replaces the value", func(t *testing.T) {
		t.Parallel()
		f := setupPlan(t, LayerSemantic, longMemory)
		p, err := f.e.Plan(f.input(replaceOnce(longMemory, "blue", "green")))
		require.NoError(t, err)
		require.Equal(t, ModeSelectiveEdit, p.Action)
		require.Equal(t, ContradictionValue, p.Contradiction.Kind)
		require.Equal(t, replaceOnce(longMemory, "blue", "green"), p.Update.Content)
		require.Len(t, p.Hunks, 1)
		require.Equal(t, "blue", p.Hunks[0].Old)
		require.Equal(t, 7.0, p.Update.Stability, "an edit does not strengthen")
		p, err = f.e.Plan(f.input(replaceOnce(longMemory, "Berlin", "Munich")))
		require.NoError(t, err)
		require.Equal(t, ModeSelectiveEdit, p.Action)
		require.Equal(t, replaceOnce(longMemory, "Berlin", "Munich"), p.Update.Content)
	})
	t.Run("integration merges and keeps both sources", func(t *testing.T) {
		t.Parallel()
		f := setupPlan(t, LayerSemantic, "Tom works at Siemens.")
		p, err := f.e.Plan(f.input("Tom works at Siemens as a software engineer in Munich."))
		require.NoError(t, err)
		require.Equal(t, ModeIntegration, p.Action)
		require.Equal(t, "Tom works at Siemens as a software engineer in Munich.", p.Update.Content)
		require.Equal(t, []string{"s1", "s2"}, p.Update.SourceIDs)
		require.Nil(t, p.Create)
	})
	t.Run("new episode keeps the old and links a new one", func(t *testing.T) {
		t.Parallel()
		f := setupPlan(t, LayerSemantic, "Tom likes jazz.")
		p, err := f.e.Plan(f.input("Tom dislikes jazz."))
		require.NoError(t, err)
		require.Equal(t, ModeNewEpisode, p.Action)
		require.Nil(t, p.Update)
		require.NotNil(t, p.Create)
		require.Equal(t, "Tom dislikes jazz.", p.Create.Content)
		require.Equal(t, LayerEpisodic, p.Create.Layer)
		require.Equal(t, "personal", p.Create.Context)
		require.Equal(t, []string{"s2"}, p.Create.SourceIDs)
		require.Equal(t, &MemoryLink{ToID: "m1", Relation: RelationContradicts}, p.Link)
		p, err = f.e.Plan(f.input("The quarterly report is due next Friday."))
		require.NoError(t, err)
		require.Equal(t, RelationCoOccurs, p.Link.Relation)
	})
}

func replaceOnce(s, old, new string) string {
	i := bytes.Index([]byte(s), []byte(old))
	return s[:i] + new + s[i+len(old):]
}

func TestPlanStabilityGate(t *testing.T) {
	t.Parallel()
	p := newProtector(t)
	locked, err := p.Evaluate("m1", StabilityInput{AccessCount: 8, Confidence: 0.9, AgeDays: 200}, t0)
	require.NoError(t, err)
	require.True(t, locked.Locked)
	unlocked, err := p.Evaluate("m1", StabilityInput{Confidence: 0.4}, t0)
	require.NoError(t, err)
	require.False(t, unlocked.Locked)
	tests := []struct {
		name, old, new string
		lock           *Lock
		mode, action   Mode
		blocked        bool
		relation       string
	}{
		{
			"rewording on a locked memory is ignored", "Laura bakes bread every Sunday morning.", "Laura bakes sourdough bread every Sunday morning.",
			&locked, ModeSelectiveEdit, ModeNoop, true, "",
		},
		{
			"the same edit passes an unlocked memory", "Laura bakes bread every Sunday morning.", "Laura bakes sourdough bread every Sunday morning.",
			&unlocked, ModeSelectiveEdit, ModeSelectiveEdit, false, "",
		},
		{
			"the same edit passes without a lock", "Laura bakes bread every Sunday morning.", "Laura bakes sourdough bread every Sunday morning.",
			nil, ModeSelectiveEdit, ModeSelectiveEdit, false, "",
		},
		{
			"a contradicting edit becomes a linked episode", longMemory, replaceOnce(longMemory, "blue", "green"),
			&locked, ModeSelectiveEdit, ModeNewEpisode, true, RelationContradicts,
		},
		{
			"a blocked integration becomes an elaboration", "Tom works at Siemens.", "Tom works at Siemens as a software engineer in Munich.",
			&locked, ModeIntegration, ModeNewEpisode, true, RelationElaborates,
		},
		{
			"a new episode is never gated", "Tom likes jazz.", "The report is due Friday.",
			&locked, ModeNewEpisode, ModeNewEpisode, false, RelationCoOccurs,
		},
		{
			"a confirmation is never gated", "Paula is allergic to peanuts.", "Paula is allergic to peanuts!",
			&locked, ModeConfirmed, ModeConfirmed, false, "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := setupPlan(t, LayerSemantic, tt.old)
			in := f.input(tt.new)
			in.Lock = tt.lock
			plan, err := f.e.Plan(in)
			require.NoError(t, err)
			require.Equal(t, tt.mode, plan.Mode)
			require.Equal(t, tt.action, plan.Action)
			require.Equal(t, tt.blocked, plan.Blocked)
			if tt.blocked {
				require.Equal(t, BlockStabilityLock, plan.BlockReason)
			}
			if tt.action == ModeNoop {
				require.Nil(t, plan.Update)
				require.Nil(t, plan.Create)
			}
			if tt.relation != "" {
				require.Equal(t, tt.relation, plan.Link.Relation)
			}
		})
	}
}

func TestPlanResistanceAndNeuro(t *testing.T) {
	t.Parallel()
	// "Anna lives in Berlin." → "Anna lives in central Berlin.": raw PE 0.2.
	tests := []struct {
		layer Layer
		neuro Levels
		want  Mode
	}{
		{LayerSemantic, BaselineLevels(), ModeSelectiveEdit},
		{LayerProcedural, BaselineLevels(), ModeSelectiveEdit},
		{LayerCore, BaselineLevels(), ModeSelectiveEdit},
		{LayerCore, Levels{DA: 0.5, NE: 0, Serotonin: 1, ACh: 0.5}, ModeConfirmed}, // PE 0.16 < 0.2 for core
		{LayerSemantic, Levels{DA: 0.5, NE: 0, Serotonin: 1, ACh: 0.5}, ModeSelectiveEdit},
	}
	for _, tt := range tests {
		f := setupPlan(t, tt.layer, "Anna lives in Berlin.")
		in := f.input("Anna lives in central Berlin.")
		in.Neuro = tt.neuro
		p, err := f.e.Plan(in)
		require.NoError(t, err)
		require.Equal(t, tt.want, p.Mode, "%s %+v", tt.layer, tt.neuro)
	}
	// "Lena plays tennis." → "Lena plays tennis on Tuesdays.": raw PE 0.4.
	for _, tt := range []struct {
		layer Layer
		neuro Levels
		want  Mode
	}{
		{LayerSemantic, BaselineLevels(), ModeIntegration},
		{LayerProcedural, BaselineLevels(), ModeIntegration}, // 0.42 < 0.467
		{LayerCore, BaselineLevels(), ModeNewEpisode},        // 0.42 ≥ 0.35
		{LayerSemantic, Levels{DA: 0.5, NE: 1, Serotonin: 0, ACh: 0.5}, ModeIntegration},
		{LayerProcedural, Levels{DA: 0.5, NE: 1, Serotonin: 0, ACh: 0.5}, ModeNewEpisode}, // 0.52
	} {
		f := setupPlan(t, tt.layer, "Lena plays tennis.")
		in := f.input("Lena plays tennis on Tuesdays.")
		in.Neuro = tt.neuro
		p, err := f.e.Plan(in)
		require.NoError(t, err)
		require.Equal(t, tt.want, p.Mode, "%s %+v", tt.layer, tt.neuro)
	}
}

func TestPlanLability(t *testing.T) {
	t.Parallel()
	f := setupPlan(t, LayerSemantic, "Anna lives in Berlin.")
	require.Equal(t, t0.Add(10*time.Minute), f.window.ClosesAt)
	in := f.input("Anna lives in Munich.")
	in.Now = t0.Add(10 * time.Minute)
	_, err := f.e.Plan(in)
	require.ErrorIs(t, err, ErrNotLabile, "the window closes after 10 minutes")
	in.Now = t0.Add(-time.Second)
	_, err = f.e.Plan(in)
	require.ErrorIs(t, err, ErrNotLabile, "not before it opens")
	in = f.input("Anna lives in Munich.")
	in.Window.MemoryID = "other"
	_, err = f.e.Plan(in)
	require.ErrorIs(t, err, ErrNotLabile, "the window of another memory")
	in = f.input("Anna lives in Munich.")
	in.Context = "work"
	p, err := f.e.Plan(in)
	require.NoError(t, err)
	require.True(t, p.Blocked)
	require.Equal(t, BlockCrossContext, p.BlockReason)
	require.Equal(t, ModeNoop, p.Action)
	require.Nil(t, p.Update)
	// A second recall extends the window.
	w2 := f.e.OpenWindow("m1", "personal", t0.Add(8*time.Minute))
	in = f.input("Anna lives in Munich.")
	in.Window, in.Now = w2, t0.Add(15*time.Minute)
	_, err = f.e.Plan(in)
	require.NoError(t, err)
}

// store is an in-memory stand-in for the worker's tables, used to check that
// apply followed by rollback restores the exact prior state.
type store struct {
	Memories map[string]Memory     `json:"memories"`
	Links    map[string]MemoryLink `json:"links"`
	Created  map[string]string     `json:"created"` // event → created memory id
}

func (s *store) apply(t *testing.T, event string, p EditPlan) {
	t.Helper()
	next, created, err := ApplyPlan(s.Memories[p.MemoryID], p)
	require.NoError(t, err)
	s.Memories[p.MemoryID] = next
	if created != nil {
		id := "new-" + event
		created.ID = id
		s.Memories[id] = *created
		s.Links[id] = *p.Link
		s.Created[event] = id
	}
}

func (s *store) rollback(t *testing.T, event string, rp RestorePlan) {
	t.Helper()
	restored, err := ApplyRestore(s.Memories[rp.MemoryID], rp)
	require.NoError(t, err)
	s.Memories[rp.MemoryID] = restored
	if id, ok := s.Created[event]; ok && rp.DeleteCreated {
		delete(s.Memories, id)
		delete(s.Links, id)
		delete(s.Created, event)
	}
}

func TestPlanApplyRollbackIsExact(t *testing.T) {
	t.Parallel()
	e := newRecon(t)
	actions := map[Mode]int{}
	for i, pair := range loadPairs(t) {
		m := Memory{
			ID: "m", Context: "personal", Layer: LayerSemantic, Content: pair.Old,
			Metadata:  json.RawMessage(`{"k": [1, 2.50, "x"]}`),
			SourceIDs: []string{"a", "b"}, Stability: 3.25, ConfidenceAlpha: 2, ConfidenceBeta: 1.5,
			UpdatedAt: t0.Add(-time.Hour),
		}
		s := &store{Memories: map[string]Memory{"m": m}, Links: map[string]MemoryLink{}, Created: map[string]string{}}
		before, err := json.Marshal(s)
		require.NoError(t, err)
		plan, err := e.Plan(ReconsolidationInput{
			Window: e.OpenWindow("m", "personal", t0), Memory: m, NewContent: pair.New,
			NewSourceIDs: []string{"c"}, Neuro: BaselineLevels(), Now: t0.Add(time.Minute),
		})
		require.NoError(t, err)
		actions[plan.Action]++
		event := fmt.Sprint(i)
		s.apply(t, event, plan)
		during, err := json.Marshal(s)
		require.NoError(t, err)
		require.NotEqual(t, string(before), string(during), "pair %d: every mode changes state", i)
		// The plan (with its snapshot) is what the worker persists.
		stored, err := json.Marshal(plan)
		require.NoError(t, err)
		var loaded EditPlan
		require.NoError(t, json.Unmarshal(stored, &loaded))
		s.rollback(t, event, Rollback(loaded.Snapshot))
		after, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(before), string(after), "pair %d (%s)", i, plan.Action)
		// A second rollback changes nothing.
		s.rollback(t, event, plan.Rollback())
		again, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(before), string(again))
	}
	for _, m := range []Mode{ModeConfirmed, ModeSelectiveEdit, ModeIntegration, ModeNewEpisode} {
		require.Positive(t, actions[m], "mode %s exercised", m)
	}
}

func TestApplyPlanStaleSnapshot(t *testing.T) {
	t.Parallel()
	f := setupPlan(t, LayerSemantic, "Anna lives in Berlin.")
	p, err := f.e.Plan(f.input("Anna lives in central Berlin."))
	require.NoError(t, err)
	changed := f.memory.Clone()
	changed.Content = "Anna lives in Hamburg."
	_, _, err = ApplyPlan(changed, p)
	require.ErrorIs(t, err, ErrStaleSnapshot)
	changed = f.memory.Clone()
	changed.Metadata = json.RawMessage(`{"source":"chat","tags":["a"]}`)
	_, _, err = ApplyPlan(changed, p)
	require.ErrorIs(t, err, ErrStaleSnapshot)
	// The snapshot is a deep copy: mutating the caller's memory after planning
	// does not reach it.
	f.memory.SourceIDs[0] = "mutated"
	f.memory.Metadata[0] = '['
	require.Equal(t, "s1", p.Snapshot.Memory.SourceIDs[0])
	require.Equal(t, byte('{'), p.Snapshot.Memory.Metadata[0])
	_, err = ApplyRestore(Memory{ID: "other"}, p.Rollback())
	require.ErrorIs(t, err, ErrInvalidInput)
}

func TestPlanBadInput(t *testing.T) {
	t.Parallel()
	f := setupPlan(t, LayerSemantic, "Anna lives in Berlin.")
	tests := []struct {
		name   string
		mutate func(*ReconsolidationInput)
	}{
		{"empty new content", func(in *ReconsolidationInput) { in.NewContent = " ... " }},
		{"NaN neuro", func(in *ReconsolidationInput) { in.Neuro.NE = math.NaN() }},
		{"neuro above 1", func(in *ReconsolidationInput) { in.Neuro.Serotonin = 2 }},
		{"unknown layer", func(in *ReconsolidationInput) { in.Memory.Layer = "limbic" }},
		{"zero now", func(in *ReconsolidationInput) { in.Now = time.Time{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := f.input("Anna lives in Munich.")
			tt.mutate(&in)
			_, err := f.e.Plan(in)
			require.ErrorIs(t, err, ErrInvalidInput)
		})
	}
	for _, cfg := range []ReconsolidationConfig{
		{ConfirmedBelow: 0.5},
		{IntegrationBelow: 1.5},
		{Window: -time.Minute},
		{ContradictionPenalty: math.NaN()},
		{Resistance: map[Layer]float64{LayerCore: 0.5}},
	} {
		_, err := NewReconsolidationEngine(&cfg)
		require.ErrorIs(t, err, ErrInvalidInput, "%+v", cfg)
	}
	// Zero neuro levels mean baseline.
	in := f.input("Anna lives in central Berlin.")
	in.Neuro = Levels{}
	p, err := f.e.Plan(in)
	require.NoError(t, err)
	require.Equal(t, BaselineLevels(), p.Snapshot.Neuro)
	require.True(t, slices.Equal([]string{"s1"}, p.Snapshot.Memory.SourceIDs))
}

func TestMergeTextLongSentenceValue(t *testing.T) {
	t.Parallel()
	// A changed value in a long sentence is edited in place, not dropped as
	// "already known".
	old := longMemory + " She runs every morning."
	require.Equal(t, replaceOnce(old, "blue", "green"), MergeText(old, replaceOnce(longMemory, "blue", "green")))
}
