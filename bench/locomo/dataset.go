package locomo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// EnvFile is the environment variable that points tests and tools at a
// LoCoMo JSON file (the file itself is licensed CC BY-NC 4.0 and never lives
// in this repository).
const EnvFile = "ZB_LOCOMO_FILE"

// DefaultFile is the development split's path relative to the repository
// root, used when [EnvFile] is unset.
const DefaultFile = "../shared/data/locomo/locomo-dev.json"

// FindDataFile returns the LoCoMo file to use: $ZB_LOCOMO_FILE when set (it
// must exist), else the first shared/data/locomo/locomo-dev.json found in the
// parent directories of start (the layout DefaultFile describes, from any
// directory of the repository).
func FindDataFile(start string) (string, error) {
	if p := os.Getenv(EnvFile); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvFile, p, err)
		}
		return p, nil
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("error resolving %s: %w", start, err)
	}
	for {
		p := filepath.Join(dir, "shared", "data", "locomo", "locomo-dev.json")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no LoCoMo file: set %s to a copy of locomo-dev.json or place it at %s relative to the repository root", EnvFile, DefaultFile)
		}
		dir = parent
	}
}

// NumCategories is the number of LoCoMo question categories: 1 multi-hop,
// 2 temporal, 3 open-domain, 4 single-hop and 5 adversarial.
const NumCategories = 5

// Dataset is a loaded LoCoMo file.
type Dataset struct {
	// Source names where the data came from (a path, or what the caller of
	// [Parse] passed).
	Source string `json:"source"`
	// Conversations are the conversations in file order.
	Conversations []Conversation `json:"conversations"`
	// Cleaning summarizes the evidence repairs [Parse] made.
	Cleaning CleaningReport `json:"cleaning"`
}

// Conversation is one LoCoMo conversation between two speakers.
type Conversation struct {
	// SampleID is the conversation's id ("conv-26").
	SampleID string `json:"sample_id"`
	// SpeakerA is the first speaker's name.
	SpeakerA string `json:"speaker_a"`
	// SpeakerB is the second speaker's name.
	SpeakerB string `json:"speaker_b"`
	// Sessions are the sessions that hold turns, ordered by number. Dates
	// given for sessions without turns (conv-26 lists dates up to session 35
	// but turns only up to 19) are ignored.
	Sessions []Session `json:"sessions"`
	// Questions are the conversation's questions in file order.
	Questions []Question `json:"questions"`
}

// Session is one dated session of a conversation.
type Session struct {
	// Number is N of the "session_N" key.
	Number int `json:"number"`
	// Date is the session's date_time parsed by [ParseSessionDate], in UTC.
	Date time.Time `json:"date"`
	// DateText is the date_time as written in the file.
	DateText string `json:"date_text"`
	// Turns are the session's turns in order.
	Turns []Turn `json:"turns"`
}

// Turn is one utterance.
type Turn struct {
	// DiaID is the turn's id, "D<session>:<i>".
	DiaID string `json:"dia_id"`
	// Speaker is the speaker's name.
	Speaker string `json:"speaker"`
	// Text is what the speaker said.
	Text string `json:"text"`
	// BlipCaption is the caption of an image the speaker shared, or empty.
	BlipCaption string `json:"blip_caption,omitempty"`
}

// Question is one annotated question.
type Question struct {
	// Index is the question's position in the conversation's qa list.
	Index int `json:"index"`
	// Text is the question.
	Text string `json:"question"`
	// Answer is the reference answer as text (numbers are formatted; empty
	// for adversarial questions, whose answer field is absent).
	Answer string `json:"answer,omitempty"`
	// Category is 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop or
	// 5 adversarial.
	Category int `json:"category"`
	// RawEvidence is the evidence list as written in the file.
	RawEvidence []string `json:"raw_evidence"`
	// Evidence is the cleaned evidence: distinct dia_ids of existing turns,
	// in first-seen order (see [CleanEvidence]).
	Evidence []string `json:"evidence"`
	// Fixes lists what cleaning changed, if anything.
	Fixes []EvidenceFix `json:"fixes,omitempty"`
}

// FixKind names one kind of evidence repair.
type FixKind string

// The evidence repairs of SOURCE.md, plus the two the loader adds for safety.
const (
	// FixSplit marks an entry that held several ids ("D8:6; D9:17").
	FixSplit FixKind = "split"
	// FixNormalized marks an id rewritten to canonical form ("D:11:26" →
	// "D11:26", "D30:05" → "D30:5").
	FixNormalized FixKind = "normalized"
	// FixParentheses marks an id that lost parentheses ("(D1:3)" → "D1:3").
	FixParentheses FixKind = "parentheses"
	// FixBareD marks a dropped bare "D".
	FixBareD FixKind = "bare_d"
	// FixUnknown marks a dropped id naming no turn of the conversation.
	FixUnknown FixKind = "unknown_turn"
	// FixMalformed marks a dropped token that is no dia_id at all (not in
	// SOURCE.md; never seen in the development split).
	FixMalformed FixKind = "malformed"
	// FixDuplicate marks a dropped repetition of an id already listed.
	FixDuplicate FixKind = "duplicate"
)

// EvidenceFix records one evidence repair.
type EvidenceFix struct {
	// Kind is the kind of repair.
	Kind FixKind `json:"kind"`
	// Raw is the entry or token as found.
	Raw string `json:"raw"`
	// Result is what it became: the id(s) kept, or empty when dropped.
	Result string `json:"result,omitempty"`
}

// QuestionRef names one question of a dataset.
type QuestionRef struct {
	// Conversation is the conversation's sample_id.
	Conversation string `json:"conversation"`
	// Index is the question's position in the qa list.
	Index int `json:"index"`
	// Category is the question's category.
	Category int `json:"category"`
	// Question is the question's text.
	Question string `json:"question"`
}

// CleaningReport summarizes the evidence repairs of a dataset.
type CleaningReport struct {
	// Fixes counts the repairs by kind.
	Fixes map[FixKind]int `json:"fixes"`
	// Dropped lists every dropped token as "<sample_id> qa[<i>]: <token>
	// (<kind>)".
	Dropped []string `json:"dropped,omitempty"`
	// EmptyEvidence lists the questions whose cleaned evidence is empty; they
	// are excluded from the retrieval metrics.
	EmptyEvidence []QuestionRef `json:"empty_evidence"`
}

// ValidationError reports malformed input at one place of the file.
type ValidationError struct {
	// Source is the file (or the name given to [Parse]).
	Source string
	// Conversation is the sample_id, or "#<i>" when the conversation has
	// none, or empty for errors about the whole file.
	Conversation string
	// Path is the JSON path inside the conversation, such as
	// "conversation.session_3[4].dia_id" or "qa[12].category".
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error implements error as "<source>: <conversation>: <path>: <msg>".
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	for _, s := range []string{e.Conversation, e.Path, e.Msg} {
		if s != "" {
			b.WriteString(": ")
			b.WriteString(s)
		}
	}
	return b.String()
}

// maxErrors is the number of problems Parse reports before it summarizes.
const maxErrors = 20

// ErrNoData is returned by [Parse] for input holding no conversation.
var ErrNoData = errors.New("no conversations")

var (
	sessionKeyRe = regexp.MustCompile(`^session_(\d+)$`)
	sessionDate  = regexp.MustCompile(`^session_(\d+)_date_time$`)
	diaIDRe      = regexp.MustCompile(`^D:?(\d+):(\d+)$`)
	parenStrip   = strings.NewReplacer("(", "", ")", "")
)

// sessionLayouts are the accepted date_time layouts, tried in order on the
// lower-cased, space-normalized text (month names match regardless of case;
// the "pm" token wants lower case).
var sessionLayouts = []string{
	"3:04 pm on 2 January, 2006",
	"3:04 pm on 2 Jan, 2006",
	"3:04 pm on 2 January 2006",
	"3:04 pm on 2 Jan 2006",
}

// ParseSessionDate parses a LoCoMo session date_time such as
// "1:56 pm on 8 May, 2023" as a time in UTC. Case and runs of white space do
// not matter, abbreviated month names and a missing comma are accepted.
func ParseSessionDate(s string) (time.Time, error) {
	norm := strings.ToLower(strings.Join(strings.Fields(s), " "))
	for _, layout := range sessionLayouts {
		if t, err := time.ParseInLocation(layout, norm, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("error parsing session date %q: want like \"1:56 pm on 8 May, 2023\"", s)
}

// CanonicalDiaID returns the canonical form of a single dia_id token after
// parentheses were stripped: "D:11:26" → "D11:26", "D30:05" → "D30:5",
// "D1:3" unchanged. It reports false for anything that is not a dia_id.
func CanonicalDiaID(tok string) (string, bool) {
	m := diaIDRe.FindStringSubmatch(tok)
	if m == nil {
		return "", false
	}
	s, err1 := strconv.Atoi(m[1])
	i, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil {
		return "", false
	}
	return "D" + strconv.Itoa(s) + ":" + strconv.Itoa(i), true
}

// CleanEvidence cleans one question's raw evidence list as SOURCE.md says:
// each entry is split on ';' and white space; parentheses are stripped from
// each token; a bare "D" is dropped; tokens are brought to canonical form by
// [CanonicalDiaID] (other tokens are dropped as malformed); ids for which
// exists reports false are dropped; repetitions are dropped. It returns the
// kept ids in first-seen order and the repairs made. A nil exists keeps every
// well-formed id.
func CleanEvidence(raw []string, exists func(id string) bool) ([]string, []EvidenceFix) {
	ids := []string{}
	var fixes []EvidenceFix
	seen := map[string]bool{}
	for _, entry := range raw {
		toks := strings.FieldsFunc(entry, func(r rune) bool { return r == ';' || unicode.IsSpace(r) })
		if len(toks) > 1 {
			fixes = append(fixes, EvidenceFix{Kind: FixSplit, Raw: entry, Result: strings.Join(toks, " ")})
		}
		if len(toks) == 0 {
			fixes = append(fixes, EvidenceFix{Kind: FixMalformed, Raw: entry})
			continue
		}
		for _, tok := range toks {
			stripped := parenStrip.Replace(tok)
			if stripped != tok {
				fixes = append(fixes, EvidenceFix{Kind: FixParentheses, Raw: tok, Result: stripped})
			}
			if stripped == "D" {
				fixes = append(fixes, EvidenceFix{Kind: FixBareD, Raw: tok})
				continue
			}
			id, ok := CanonicalDiaID(stripped)
			if !ok {
				fixes = append(fixes, EvidenceFix{Kind: FixMalformed, Raw: tok})
				continue
			}
			if id != stripped {
				fixes = append(fixes, EvidenceFix{Kind: FixNormalized, Raw: stripped, Result: id})
			}
			if exists != nil && !exists(id) {
				fixes = append(fixes, EvidenceFix{Kind: FixUnknown, Raw: id})
				continue
			}
			if seen[id] {
				fixes = append(fixes, EvidenceFix{Kind: FixDuplicate, Raw: id})
				continue
			}
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, fixes
}

// Load reads and parses the LoCoMo JSON file at path (see [Parse]).
func Load(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("error opening LoCoMo file: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

type rawConversation struct {
	SampleID     *string                    `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []json.RawMessage          `json:"qa"`
}

type rawTurn struct {
	Speaker     *string `json:"speaker"`
	DiaID       *string `json:"dia_id"`
	Text        *string `json:"text"`
	BlipCaption *string `json:"blip_caption"`
}

type rawQA struct {
	Question *string         `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Evidence []string        `json:"evidence"`
	Category *int            `json:"category"`
}

// Parse reads a LoCoMo JSON array of conversations from r; source names the
// input in errors and in [Dataset.Source]. It validates the structure (ids,
// speakers, texts, session dates, categories) and cleans the evidence with
// [CleanEvidence] against the conversation's turns. The problems found (the
// first 20, then a count of the rest) are returned joined, as
// [*ValidationError]s; input without any conversation gives [ErrNoData].
func Parse(r io.Reader, source string) (*Dataset, error) {
	var raws []json.RawMessage
	if err := json.NewDecoder(r).Decode(&raws); err != nil {
		return nil, &ValidationError{Source: source, Msg: fmt.Sprintf("want a JSON array of conversations: %v", err)}
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("error parsing %s: %w", source, ErrNoData)
	}
	ds := newDataset(source)
	var errs []error
	ids := map[string]int{}
	for ci, raw := range raws {
		conv, cerrs := parseConversation(raw, ci, source)
		errs = append(errs, cerrs...)
		if conv == nil {
			continue
		}
		if prev, dup := ids[conv.SampleID]; dup {
			errs = append(errs, &ValidationError{
				Source: source, Conversation: conv.SampleID, Path: "sample_id",
				Msg: fmt.Sprintf("repeats conversation #%d", prev),
			})
			continue
		}
		ids[conv.SampleID] = ci
		ds.add(conv)
	}
	if len(errs) > maxErrors {
		errs = append(errs[:maxErrors], fmt.Errorf("%s: and %d more problems", source, len(errs)-maxErrors))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return ds, nil
}

// newDataset returns an empty dataset of source.
func newDataset(source string) *Dataset {
	return &Dataset{Source: source, Cleaning: CleaningReport{Fixes: map[FixKind]int{}, EmptyEvidence: []QuestionRef{}}}
}

// add appends conv to the dataset and counts its evidence repairs and its questions without
// evidence in the cleaning report.
func (d *Dataset) add(conv *Conversation) {
	for _, q := range conv.Questions {
		for _, f := range q.Fixes {
			d.Cleaning.Fixes[f.Kind]++
			if f.Result == "" {
				d.Cleaning.Dropped = append(d.Cleaning.Dropped,
					fmt.Sprintf("%s qa[%d]: %q (%s)", conv.SampleID, q.Index, f.Raw, f.Kind))
			}
		}
		if len(q.Evidence) == 0 {
			d.Cleaning.EmptyEvidence = append(d.Cleaning.EmptyEvidence, QuestionRef{
				Conversation: conv.SampleID, Index: q.Index, Category: q.Category, Question: q.Text,
			})
		}
	}
	d.Conversations = append(d.Conversations, *conv)
}

// parseConversation parses the conversation at position ci. It returns nil
// and the errors when the conversation cannot be used.
func parseConversation(raw json.RawMessage, ci int, source string) (*Conversation, []error) {
	var errs []error
	name := fmt.Sprintf("#%d", ci)
	fail := func(path, format string, args ...any) {
		errs = append(errs, &ValidationError{Source: source, Conversation: name, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	var rc rawConversation
	if err := json.Unmarshal(raw, &rc); err != nil {
		fail("", "want an object with sample_id, conversation and qa: %v", err)
		return nil, errs
	}
	switch {
	case rc.SampleID == nil || strings.TrimSpace(*rc.SampleID) == "":
		fail("sample_id", "missing or empty")
	case strings.ContainsAny(*rc.SampleID, "/ \t\n"):
		name = *rc.SampleID
		fail("sample_id", "%q must not contain '/' or white space (ids are namespaced in the shared pool)", *rc.SampleID)
	default:
		name = *rc.SampleID
	}
	if rc.Conversation == nil {
		fail("conversation", "missing")
		return nil, errs
	}
	conv := &Conversation{SampleID: name}
	for _, f := range []struct {
		key string
		dst *string
	}{{"speaker_a", &conv.SpeakerA}, {"speaker_b", &conv.SpeakerB}} {
		v, ok := rc.Conversation[f.key]
		if !ok || json.Unmarshal(v, f.dst) != nil || strings.TrimSpace(*f.dst) == "" {
			fail("conversation."+f.key, "missing or not a non-empty string")
		}
	}

	dates := map[int]string{}
	var numbers []int
	for k, v := range rc.Conversation {
		if m := sessionDate.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				fail("conversation."+k, "want a string: %v", err)
				continue
			}
			dates[n] = s
		} else if m := sessionKeyRe.FindStringSubmatch(k); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				fail("conversation."+k, "session number out of range")
				continue
			}
			numbers = append(numbers, n)
		}
	}
	sort.Ints(numbers)
	seenIDs := map[string]string{}
	for _, n := range numbers {
		key := fmt.Sprintf("session_%d", n)
		s := Session{Number: n}
		dt, ok := dates[n]
		if !ok {
			fail("conversation."+key+"_date_time", "missing for session %d", n)
		} else if d, err := ParseSessionDate(dt); err != nil {
			fail("conversation."+key+"_date_time", "%v", err)
		} else {
			s.Date, s.DateText = d, dt
		}
		var turns []json.RawMessage
		if err := json.Unmarshal(rc.Conversation[key], &turns); err != nil {
			fail("conversation."+key, "want a list of turns: %v", err)
			continue
		}
		for ti, rt := range turns {
			path := fmt.Sprintf("conversation.%s[%d]", key, ti)
			var t rawTurn
			if err := json.Unmarshal(rt, &t); err != nil {
				fail(path, "want a turn object: %v", err)
				continue
			}
			turn, ok := checkTurn(t, path, fail)
			if !ok {
				continue
			}
			if prev, dup := seenIDs[turn.DiaID]; dup {
				fail(path+".dia_id", "%q repeats %s", turn.DiaID, prev)
				continue
			}
			seenIDs[turn.DiaID] = path
			s.Turns = append(s.Turns, turn)
		}
		conv.Sessions = append(conv.Sessions, s)
	}
	if len(seenIDs) == 0 {
		fail("conversation", "no session with turns")
	}

	for qi, rq := range rc.QA {
		path := fmt.Sprintf("qa[%d]", qi)
		var q rawQA
		if err := json.Unmarshal(rq, &q); err != nil {
			fail(path, "want a question object: %v", err)
			continue
		}
		if q.Question == nil || strings.TrimSpace(*q.Question) == "" {
			fail(path+".question", "missing or empty")
			continue
		}
		if q.Category == nil || *q.Category < 1 || *q.Category > NumCategories {
			fail(path+".category", "missing or not in 1..%d", NumCategories)
			continue
		}
		ev, fixes := CleanEvidence(q.Evidence, func(id string) bool { _, ok := seenIDs[id]; return ok })
		raw := q.Evidence
		if raw == nil {
			raw = []string{}
		}
		conv.Questions = append(conv.Questions, Question{
			Index: qi, Text: *q.Question, Answer: answerText(q.Answer), Category: *q.Category,
			RawEvidence: raw, Evidence: ev, Fixes: fixes,
		})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return conv, nil
}

// checkTurn validates one raw turn.
func checkTurn(t rawTurn, path string, fail func(path, format string, args ...any)) (Turn, bool) {
	ok := true
	var turn Turn
	switch t.DiaID {
	case nil:
		fail(path+".dia_id", "missing")
		ok = false
	default:
		id, good := CanonicalDiaID(*t.DiaID)
		if !good || id != *t.DiaID {
			fail(path+".dia_id", "%q is not of the form D<session>:<turn>", *t.DiaID)
			ok = false
		}
		turn.DiaID = *t.DiaID
	}
	if t.Speaker == nil || strings.TrimSpace(*t.Speaker) == "" {
		fail(path+".speaker", "missing or empty")
		ok = false
	} else {
		turn.Speaker = *t.Speaker
	}
	if t.Text != nil {
		turn.Text = *t.Text
	}
	if t.BlipCaption != nil {
		turn.BlipCaption = strings.TrimSpace(*t.BlipCaption)
	}
	if strings.TrimSpace(turn.Text) == "" && turn.BlipCaption == "" {
		fail(path+".text", "missing or empty (and no blip_caption)")
		ok = false
	}
	return turn, ok
}

// answerText formats a raw answer: strings as they are, other JSON values
// (numbers) as written, null or absent as "".
func answerText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// LastDate returns the date of the conversation's last session (zero without
// sessions).
func (c *Conversation) LastDate() time.Time {
	if len(c.Sessions) == 0 {
		return time.Time{}
	}
	return c.Sessions[len(c.Sessions)-1].Date
}

// QueryTime returns the protocol's query time for the conversation: its last
// session's date plus one second per turn of that session, that is one second
// after the last turn (turns are stamped date + i s), so that no turn lies in
// the future of the query. It is zero without sessions.
func (c *Conversation) QueryTime() time.Time {
	if len(c.Sessions) == 0 {
		return time.Time{}
	}
	last := c.Sessions[len(c.Sessions)-1]
	return last.Date.Add(time.Duration(len(last.Turns)) * time.Second)
}

// NumTurns returns the number of turns over all sessions.
func (c *Conversation) NumTurns() int {
	n := 0
	for _, s := range c.Sessions {
		n += len(s.Turns)
	}
	return n
}

// Stats counts what a dataset holds.
type Stats struct {
	// Conversations counts the conversations.
	Conversations int `json:"conversations"`
	// Sessions counts the sessions with turns.
	Sessions int `json:"sessions"`
	// Turns counts the turns.
	Turns int `json:"turns"`
	// Questions counts all questions, scored or not.
	Questions int `json:"questions"`
	// Scored counts the questions with non-empty cleaned evidence, the ones
	// the metrics average over.
	Scored int `json:"scored"`
	// ExcludedEmptyEvidence counts questions left out for empty evidence.
	ExcludedEmptyEvidence int `json:"excluded_empty_evidence"`
	// PerCategory counts scored questions by category ("1".."5").
	PerCategory map[string]int `json:"per_category"`
}

// Stats counts the dataset's conversations, sessions, turns and questions.
func (d *Dataset) Stats() Stats {
	st := Stats{Conversations: len(d.Conversations), PerCategory: map[string]int{}}
	for i := range d.Conversations {
		c := &d.Conversations[i]
		st.Sessions += len(c.Sessions)
		st.Turns += c.NumTurns()
		for _, q := range c.Questions {
			st.Questions++
			if len(q.Evidence) == 0 {
				st.ExcludedEmptyEvidence++
				continue
			}
			st.Scored++
			st.PerCategory[strconv.Itoa(q.Category)]++
		}
	}
	return st
}
