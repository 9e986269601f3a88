package locomo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fixture is a tiny dataset with every evidence defect of SOURCE.md: session
// keys out of order (1, 10, 2), a date for a session without turns, a caption,
// an integer answer, an adversarial question without answer, and evidence
// "D1:1; D2:1" (split), "D:10:1" and "D10:01" (normalized), "(D1:2)"
// (parentheses), a bare "D", "D9:9" (no such turn), an empty list, a
// repetition and a token that is no id at all.
const fixture = `[
 {"sample_id": "conv-a",
  "conversation": {
   "speaker_a": "Ann", "speaker_b": "Bob",
   "session_10_date_time": "9:05 am on 1 March, 2023",
   "session_10": [
     {"speaker": "Bob", "dia_id": "D10:1", "text": "The dog is named Rex."},
     {"speaker": "Ann", "dia_id": "D10:2", "text": "Rex is a nice name."}],
   "session_1_date_time": "1:56 pm on 8 May, 2022",
   "session_1": [
     {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob, how is the garden?"},
     {"speaker": "Bob", "dia_id": "D1:2", "text": "Look at this!", "blip_caption": "a photo of a cat", "img_url": ["x"]}],
   "session_2_date_time": "12:09 am on 13 September, 2022",
   "session_2": [
     {"speaker": "Ann", "dia_id": "D2:1", "text": "I adopted a dog yesterday."}],
   "session_3_date_time": "4:00 pm on 2 April, 2023"
  },
  "qa": [
   {"question": "Who did Ann greet?", "answer": "Bob", "evidence": ["D1:1; D2:1"], "category": 1},
   {"question": "What is the dog called?", "answer": 42, "evidence": ["D:10:1"], "category": 4},
   {"question": "What did Bob show?", "answer": "a cat", "evidence": ["D10:01", "(D1:2)"], "category": 2},
   {"question": "What did Ann adopt?", "answer": "a dog", "evidence": ["D2:1", "D"], "category": 4},
   {"question": "Where is the lake?", "answer": "far", "evidence": ["D9:9"], "category": 3},
   {"question": "Is Ann kind?", "answer": "yes", "evidence": [], "category": 3},
   {"question": "What did Ann paint?", "adversarial_answer": "a dog", "evidence": ["D1:1 D1:2", "D1:1"], "category": 5},
   {"question": "Who is Cleo?", "answer": "nobody", "evidence": ["X1"], "category": 4}
  ]},
 {"sample_id": "conv-b",
  "conversation": {
   "speaker_a": "Cy", "speaker_b": "Di",
   "session_1_date_time": "10:37 am on 27 June, 2023",
   "session_1": [
     {"speaker": "Cy", "dia_id": "D1:1", "text": "I play the violin."},
     {"speaker": "Di", "dia_id": "D1:2", "text": "I run marathons."}]},
  "qa": [
   {"question": "Which instrument does Cy play?", "answer": "violin", "evidence": ["D1:1"], "category": 4}
  ]}
]`

func TestParseSessionDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "1:56 pm on 8 May, 2023", want: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{in: "12:09 am on 13 September, 2023", want: time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC)},
		{in: "12:20 pm on 8 December, 2023", want: time.Date(2023, 12, 8, 12, 20, 0, 0, time.UTC)},
		{in: "10:37 AM on 27 June, 2023", want: time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)},
		{in: "  7:31 pm   on 21 January,  2022 ", want: time.Date(2022, 1, 21, 19, 31, 0, 0, time.UTC)},
		{in: "7:31 pm on 21 Jan, 2022", want: time.Date(2022, 1, 21, 19, 31, 0, 0, time.UTC)},
		{in: "7:31 pm on 21 January 2022", want: time.Date(2022, 1, 21, 19, 31, 0, 0, time.UTC)},
		{in: "", bad: true},
		{in: "8 May, 2023", bad: true},
		{in: "13:56 pm on 8 May, 2023", bad: true},
		{in: "1:56 pm on 31 February, 2023", bad: true},
		{in: "2023-05-08T13:56:00Z", bad: true},
	} {
		got, err := ParseSessionDate(tc.in)
		if tc.bad {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
		require.Equal(t, time.UTC, got.Location())
	}
}

func TestCanonicalDiaID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"D1:3", "D1:3", true},
		{"D:11:26", "D11:26", true},
		{"D30:05", "D30:5", true},
		{"D007:010", "D7:10", true},
		{"D", "", false},
		{"D1", "", false},
		{"d1:3", "", false},
		{"D1:3:4", "", false},
		{"(D1:3)", "", false},
		{"D1:99999999999999999999999", "", false},
		{"", "", false},
	} {
		got, ok := CanonicalDiaID(tc.in)
		require.Equal(t, tc.ok, ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestCleanEvidence(t *testing.T) {
	t.Parallel()
	turns := map[string]bool{
		"D1:1": true, "D1:2": true, "D8:6": true, "D9:17": true, "D9:1": true, "D4:4": true,
		"D4:6": true, "D11:26": true, "D30:5": true,
	}
	exists := func(id string) bool { return turns[id] }
	for _, tc := range []struct {
		name  string
		raw   []string
		want  []string
		fixes []EvidenceFix
	}{
		{name: "clean", raw: []string{"D1:1", "D1:2"}, want: []string{"D1:1", "D1:2"}},
		{
			name: "semicolon", raw: []string{"D8:6; D9:17"}, want: []string{"D8:6", "D9:17"},
			fixes: []EvidenceFix{{Kind: FixSplit, Raw: "D8:6; D9:17", Result: "D8:6 D9:17"}},
		},
		{
			name: "spaces", raw: []string{"D9:1 D4:4 D4:6"}, want: []string{"D9:1", "D4:4", "D4:6"},
			fixes: []EvidenceFix{{Kind: FixSplit, Raw: "D9:1 D4:4 D4:6", Result: "D9:1 D4:4 D4:6"}},
		},
		{
			name: "extra colon", raw: []string{"D:11:26"}, want: []string{"D11:26"},
			fixes: []EvidenceFix{{Kind: FixNormalized, Raw: "D:11:26", Result: "D11:26"}},
		},
		{
			name: "leading zero", raw: []string{"D30:05"}, want: []string{"D30:5"},
			fixes: []EvidenceFix{{Kind: FixNormalized, Raw: "D30:05", Result: "D30:5"}},
		},
		{
			name: "parentheses", raw: []string{"(D1:1)", "D1:2)"}, want: []string{"D1:1", "D1:2"},
			fixes: []EvidenceFix{{Kind: FixParentheses, Raw: "(D1:1)", Result: "D1:1"}, {Kind: FixParentheses, Raw: "D1:2)", Result: "D1:2"}},
		},
		{
			name: "bare D", raw: []string{"D1:1", "D"}, want: []string{"D1:1"},
			fixes: []EvidenceFix{{Kind: FixBareD, Raw: "D"}},
		},
		{
			name: "bare D in parentheses", raw: []string{"(D)"}, want: []string{},
			fixes: []EvidenceFix{{Kind: FixParentheses, Raw: "(D)", Result: "D"}, {Kind: FixBareD, Raw: "(D)"}},
		},
		{
			name: "unknown turn", raw: []string{"D1:1", "D10:19"}, want: []string{"D1:1"},
			fixes: []EvidenceFix{{Kind: FixUnknown, Raw: "D10:19"}},
		},
		{
			name: "normalized then unknown", raw: []string{"D10:019"}, want: []string{},
			fixes: []EvidenceFix{{Kind: FixNormalized, Raw: "D10:019", Result: "D10:19"}, {Kind: FixUnknown, Raw: "D10:19"}},
		},
		{
			name: "duplicate", raw: []string{"D1:1", "D1:01"}, want: []string{"D1:1"},
			fixes: []EvidenceFix{{Kind: FixNormalized, Raw: "D1:01", Result: "D1:1"}, {Kind: FixDuplicate, Raw: "D1:1"}},
		},
		{
			name: "malformed", raw: []string{"X1", ""}, want: []string{},
			fixes: []EvidenceFix{{Kind: FixMalformed, Raw: "X1"}, {Kind: FixMalformed, Raw: ""}},
		},
		{name: "empty", raw: nil, want: []string{}},
	} {
		got, fixes := CleanEvidence(tc.raw, exists)
		require.Equal(t, tc.want, got, tc.name)
		require.Equal(t, tc.fixes, fixes, tc.name)
	}
	got, _ := CleanEvidence([]string{"D99:1"}, nil)
	require.Equal(t, []string{"D99:1"}, got, "nil exists keeps well-formed ids")
}

func TestParseFixture(t *testing.T) {
	t.Parallel()
	ds := parseString(t, fixture)
	require.Equal(t, "fixture.json", ds.Source)
	require.Len(t, ds.Conversations, 2)
	c := ds.Conversations[0]
	require.Equal(t, "conv-a", c.SampleID)
	require.Equal(t, "Ann", c.SpeakerA)
	require.Equal(t, "Bob", c.SpeakerB)

	// Sessions sorted numerically; the date of session 3 (no turns) ignored.
	require.Len(t, c.Sessions, 3)
	require.Equal(t, []int{1, 2, 10}, []int{c.Sessions[0].Number, c.Sessions[1].Number, c.Sessions[2].Number})
	require.Equal(t, time.Date(2022, 5, 8, 13, 56, 0, 0, time.UTC), c.Sessions[0].Date)
	require.Equal(t, "1:56 pm on 8 May, 2022", c.Sessions[0].DateText)
	require.Equal(t, time.Date(2023, 3, 1, 9, 5, 0, 0, time.UTC), c.LastDate())
	require.Equal(t, time.Date(2023, 3, 1, 9, 5, 2, 0, time.UTC), c.QueryTime())
	require.Zero(t, (&Conversation{}).QueryTime())
	require.Zero(t, (&Conversation{}).LastDate())
	require.Equal(t, 5, c.NumTurns())
	require.Equal(t, Turn{DiaID: "D1:2", Speaker: "Bob", Text: "Look at this!", BlipCaption: "a photo of a cat"}, c.Sessions[0].Turns[1])

	want := []struct {
		answer   string
		category int
		evidence []string
	}{
		{"Bob", 1, []string{"D1:1", "D2:1"}},
		{"42", 4, []string{"D10:1"}},
		{"a cat", 2, []string{"D10:1", "D1:2"}},
		{"a dog", 4, []string{"D2:1"}},
		{"far", 3, []string{}},
		{"yes", 3, []string{}},
		{"", 5, []string{"D1:1", "D1:2"}},
		{"nobody", 4, []string{}},
	}
	require.Len(t, c.Questions, len(want))
	for i, w := range want {
		q := c.Questions[i]
		require.Equal(t, i, q.Index)
		require.Equal(t, w.answer, q.Answer, i)
		require.Equal(t, w.category, q.Category, i)
		require.Equal(t, w.evidence, q.Evidence, i)
	}
	require.Equal(t, []string{"D10:01", "(D1:2)"}, c.Questions[2].RawEvidence)

	require.Equal(t, map[FixKind]int{
		FixSplit: 2, FixNormalized: 2, FixParentheses: 1, FixBareD: 1, FixUnknown: 1, FixDuplicate: 1, FixMalformed: 1,
	}, ds.Cleaning.Fixes)
	require.Equal(t, []string{
		`conv-a qa[3]: "D" (bare_d)`,
		`conv-a qa[4]: "D9:9" (unknown_turn)`,
		`conv-a qa[6]: "D1:1" (duplicate)`,
		`conv-a qa[7]: "X1" (malformed)`,
	}, ds.Cleaning.Dropped)
	require.Equal(t, []QuestionRef{
		{Conversation: "conv-a", Index: 4, Category: 3, Question: "Where is the lake?"},
		{Conversation: "conv-a", Index: 5, Category: 3, Question: "Is Ann kind?"},
		{Conversation: "conv-a", Index: 7, Category: 4, Question: "Who is Cleo?"},
	}, ds.Cleaning.EmptyEvidence)

	st := ds.Stats()
	require.Equal(t, Stats{
		Conversations: 2, Sessions: 4, Turns: 7, Questions: 9, Scored: 6, ExcludedEmptyEvidence: 3,
		PerCategory: map[string]int{"1": 1, "2": 1, "4": 3, "5": 1},
	}, st)
}

// conv builds a one-conversation file from its parts.
func conv(id, body, qa string) string {
	return `[{` + id + `"conversation": {` + body + `}, "qa": [` + qa + `]}]`
}

const (
	okID       = `"sample_id": "conv-x", `
	okSpeakers = `"speaker_a": "A", "speaker_b": "B", `
	okSession  = `"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]`
	okQA       = `{"question": "q?", "answer": "a", "evidence": ["D1:1"], "category": 1}`
)

func TestParseValidation(t *testing.T) {
	t.Parallel()
	// The well-formed base parses.
	parseString(t, conv(okID, okSpeakers+okSession, okQA))

	for _, tc := range []struct {
		name, in string
		want     []string // substrings of the error
	}{
		{"not an array", `{"sample_id": "x"}`, []string{"fixture.json: want a JSON array"}},
		{"not JSON", `[{`, []string{"fixture.json: want a JSON array"}},
		{"conversation not an object", `[42]`, []string{"fixture.json: #0: want an object"}},
		{"no sample_id", conv("", okSpeakers+okSession, okQA), []string{"fixture.json: #0: sample_id: missing or empty"}},
		{"slash in sample_id", conv(`"sample_id": "a/b", `, okSpeakers+okSession, okQA), []string{`a/b: sample_id: "a/b" must not contain '/'`}},
		{"repeated sample_id", `[` + strings.Trim(conv(okID, okSpeakers+okSession, okQA), "[]") + `,` +
			strings.Trim(conv(okID, okSpeakers+okSession, okQA), "[]") + `]`, []string{"conv-x: sample_id: repeats conversation #0"}},
		{"no conversation", `[{"sample_id": "conv-x", "qa": []}]`, []string{"conv-x: conversation: missing"}},
		{"no speaker_b", conv(okID, `"speaker_a": "A", `+okSession, okQA), []string{"conv-x: conversation.speaker_b: missing"}},
		{
			"no session date", conv(okID, okSpeakers+`"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]`, okQA),
			[]string{"conv-x: conversation.session_1_date_time: missing for session 1"},
		},
		{
			"bad session date", conv(okID, okSpeakers+strings.Replace(okSession, "8 May", "8 Mai", 1), okQA),
			[]string{"conv-x: conversation.session_1_date_time: error parsing session date"},
		},
		{
			"session not a list", conv(okID, okSpeakers+`"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": {}`, okQA),
			[]string{"conv-x: conversation.session_1: want a list of turns"},
		},
		{
			"no sessions", conv(okID, okSpeakers+`"session_1_date_time": "1:56 pm on 8 May, 2023"`, okQA),
			[]string{"conv-x: conversation: no session with turns"},
		},
		{
			"turn without dia_id", conv(okID, okSpeakers+strings.Replace(okSession, `"dia_id": "D1:1", `, "", 1), okQA),
			[]string{"conv-x: conversation.session_1[0].dia_id: missing"},
		},
		{
			"malformed dia_id", conv(okID, okSpeakers+strings.Replace(okSession, `"D1:1"`, `"D1-1"`, 1), okQA),
			[]string{`conv-x: conversation.session_1[0].dia_id: "D1-1" is not of the form`},
		},
		{
			"repeated dia_id", conv(okID, okSpeakers+strings.Replace(okSession, `]`, `, {"speaker": "B", "dia_id": "D1:1", "text": "yo"}]`, 1), okQA),
			[]string{`conv-x: conversation.session_1[1].dia_id: "D1:1" repeats conversation.session_1[0]`},
		},
		{
			"empty speaker", conv(okID, okSpeakers+strings.Replace(okSession, `"speaker": "A"`, `"speaker": " "`, 1), okQA),
			[]string{"conv-x: conversation.session_1[0].speaker: missing or empty"},
		},
		{
			"empty text", conv(okID, okSpeakers+strings.Replace(okSession, `"text": "hi"`, `"text": ""`, 1), okQA),
			[]string{"conv-x: conversation.session_1[0].text: missing or empty"},
		},
		{
			"turn of wrong type", conv(okID, okSpeakers+strings.Replace(okSession, `"text": "hi"`, `"text": 5`, 1), okQA),
			[]string{"conv-x: conversation.session_1[0]: want a turn object"},
		},
		{
			"bad category", conv(okID, okSpeakers+okSession, strings.Replace(okQA, `"category": 1`, `"category": 7`, 1)),
			[]string{"conv-x: qa[0].category: missing or not in 1..5"},
		},
		{
			"no category", conv(okID, okSpeakers+okSession, strings.Replace(okQA, `, "category": 1`, ``, 1)),
			[]string{"conv-x: qa[0].category: missing"},
		},
		{
			"empty question", conv(okID, okSpeakers+okSession, strings.Replace(okQA, `"q?"`, `""`, 1)),
			[]string{"conv-x: qa[0].question: missing or empty"},
		},
		{
			"evidence not strings", conv(okID, okSpeakers+okSession, strings.Replace(okQA, `["D1:1"]`, `[1]`, 1)),
			[]string{"conv-x: qa[0]: want a question object"},
		},
		{
			"several problems", conv(okID, `"speaker_a": "A", `+okSession, strings.Replace(okQA, `"category": 1`, `"category": 0`, 1)),
			[]string{"conversation.speaker_b: missing", "qa[0].category"},
		},
	} {
		_, err := Parse(strings.NewReader(tc.in), "fixture.json")
		require.Error(t, err, tc.name)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w, tc.name)
		}
		var ve *ValidationError
		require.True(t, errors.As(err, &ve), "%s: want a *ValidationError in %v", tc.name, err)
	}

	_, err := Parse(strings.NewReader(`[]`), "fixture.json")
	require.ErrorIs(t, err, ErrNoData)

	// Many problems are summarized after the first 20.
	var many strings.Builder
	many.WriteString("[")
	for i := range 25 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"qa": []}`)
	}
	many.WriteString("]")
	_, err = Parse(strings.NewReader(many.String()), "fixture.json")
	require.ErrorContains(t, err, "and 30 more problems") // 25 × 2 problems, 20 listed
}

func TestLoad(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorIs(t, err, os.ErrNotExist)

	path := filepath.Join(t.TempDir(), "fixture.json")
	require.NoError(t, os.WriteFile(path, []byte(fixture), 0o600))
	ds, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, path, ds.Source)
	require.Len(t, ds.Conversations, 2)
}

// TestLoadRealFile checks the development split and each of its evidence
// defects (SOURCE.md).
func TestLoadRealFile(t *testing.T) {
	t.Parallel()
	ds := loadReal(t)
	st := ds.Stats()
	require.Equal(t, Stats{
		Conversations: 5, Sessions: 128, Turns: 2760, Questions: 999, Scored: 997, ExcludedEmptyEvidence: 2,
		PerCategory: map[string]int{"1": 142, "2": 156, "3": 44, "4": 418, "5": 237},
	}, st)
	byID := map[string]*Conversation{}
	for i := range ds.Conversations {
		byID[ds.Conversations[i].SampleID] = &ds.Conversations[i]
	}
	require.Len(t, byID, 5)
	for _, id := range []string{"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"} {
		require.Contains(t, byID, id)
	}

	c26 := byID["conv-26"]
	require.Len(t, c26.Sessions, 19, "dates listed up to session 35, turns only up to 19")
	require.Equal(t, time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), c26.Sessions[0].Date)
	require.Equal(t, Turn{DiaID: "D1:1", Speaker: "Caroline", Text: "Hey Mel! Good to see you! How have you been?"}, c26.Sessions[0].Turns[0])
	require.Equal(t, "a photo of a dog walking past a wall with a painting of a woman", c26.Sessions[0].Turns[4].BlipCaption)

	for _, tc := range []struct {
		conv     string
		index    int
		evidence []string
		kinds    []FixKind
	}{
		{"conv-26", 37, []string{"D8:6", "D9:17"}, []FixKind{FixSplit}},                                                     // "D8:6; D9:17"
		{"conv-43", 18, []string{"D1:14", "D2:7", "D4:7", "D5:15", "D11:26", "D20:21", "D26:36"}, []FixKind{FixNormalized}}, // "D:11:26"
		{"conv-42", 88, []string{"D1:18", "D1:20"}, []FixKind{FixBareD}},                                                    // bare "D"
		{"conv-42", 58, []string{"D2:14", "D9:12", "D9:14", "D10:11", "D19:17", "D27:23"}, []FixKind{FixUnknown}},           // "D10:19"
		{"conv-26", 30, []string{}, nil}, // empty evidence
		{"conv-26", 46, []string{}, nil}, // empty evidence
		{"conv-26", 0, []string{"D1:3"}, nil},
	} {
		q := byID[tc.conv].Questions[tc.index]
		require.Equal(t, tc.index, q.Index)
		require.Equal(t, tc.evidence, q.Evidence, "%s qa[%d]", tc.conv, tc.index)
		var kinds []FixKind
		for _, f := range q.Fixes {
			kinds = append(kinds, f.Kind)
		}
		require.Equal(t, tc.kinds, kinds, "%s qa[%d]", tc.conv, tc.index)
	}
	require.Equal(t, map[FixKind]int{FixSplit: 1, FixNormalized: 1, FixBareD: 1, FixUnknown: 1}, ds.Cleaning.Fixes)
	require.Len(t, ds.Cleaning.EmptyEvidence, 2)
	for _, ref := range ds.Cleaning.EmptyEvidence {
		require.Equal(t, "conv-26", ref.Conversation)
		require.Equal(t, 3, ref.Category)
	}

	// Every cleaned id names an existing turn; dia_ids are unique.
	for _, c := range ds.Conversations {
		ids := map[string]bool{}
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				require.False(t, ids[tu.DiaID])
				ids[tu.DiaID] = true
			}
		}
		for _, q := range c.Questions {
			for _, id := range q.Evidence {
				require.True(t, ids[id], "%s qa[%d] %s", c.SampleID, q.Index, id)
			}
		}
	}
}
