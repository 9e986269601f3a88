package locomo

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/budget"
)

// The context budgets of the headline protocol, in estimated tokens ([budget.Tokens]).
const (
	// BudgetSmall is the smallest budget: a few turns.
	BudgetSmall = 250
	// BudgetMedium is the middle budget.
	BudgetMedium = 1000
	// BudgetLarge is the largest budget.
	BudgetLarge = 2000
)

// PackingDescription describes [Pack], [StrictCredit] and [LenientCredit] for reports.
const PackingDescription = "hits in rank order, one per line, while the estimate ⌈words·1.3⌉ stays within the budget, " +
	"the next hit cut at a word boundary; strict: an evidence turn counts iff its own text lies whole inside the delivery; " +
	"lenient: every source of a hit delivered whole counts too"

// Budgets returns the context budgets [Run] measures, smallest first: [BudgetSmall],
// [BudgetMedium] and [BudgetLarge].
func Budgets() []int { return []int{BudgetSmall, BudgetMedium, BudgetLarge} }

// ContextSystem is implemented by systems that assemble a context block themselves. [Run] asks
// for one block per question and budget and credits it strictly (see [StrictCredit]).
type ContextSystem interface {
	// Context returns the block an agent would receive for query from tenant at time now,
	// within budgetTokens estimated tokens ([budget.Tokens]).
	Context(ctx context.Context, tenant, query string, now time.Time, budgetTokens int) (string, error)
}

// Delivery is what a budget delivers from ranked hits (see [Pack]).
type Delivery struct {
	// Text is the delivered text: the hits' texts in rank order, one per line, the last one
	// possibly cut.
	Text string `json:"text"`
	// Tokens is budget.Tokens(Text).
	Tokens int `json:"tokens"`
	// Whole counts the hits delivered whole.
	Whole int `json:"whole"`
	// Cut reports whether a further hit was delivered in part.
	Cut bool `json:"cut"`
	// Sources are the source ids of the hits delivered whole, in rank order (repeats kept).
	Sources []string `json:"sources"`
}

// Pack delivers hits in rank order within budgetTokens estimated tokens: each hit's text
// (trimmed) is appended on a line of its own while the estimate of the whole delivery stays
// within the budget; the first hit that does not fit is cut after its last word that fits and
// ends the delivery. Hits without words deliver nothing and are skipped. A budget ≤ 0 delivers
// nothing. budget.Tokens(Text) ≤ budgetTokens always holds.
func Pack(hits []Hit, budgetTokens int) Delivery {
	limit := maxWords(budgetTokens)
	var d Delivery
	var parts []string
	used := 0
	for _, h := range hits {
		if used == limit {
			break
		}
		text := strings.TrimSpace(h.Text)
		n := len(strings.Fields(text))
		if n == 0 {
			continue
		}
		if used+n <= limit {
			parts = append(parts, text)
			d.Sources = append(d.Sources, h.SourceIDs...)
			d.Whole++
			used += n
			continue
		}
		parts = append(parts, firstWords(text, limit-used))
		d.Cut = true
		break
	}
	d.Text = strings.Join(parts, "\n")
	d.Tokens = budget.Tokens(d.Text)
	return d
}

// maxWords returns the largest word count whose estimate ([budget.Tokens]) is at most
// budgetTokens.
func maxWords(budgetTokens int) int {
	if budgetTokens <= 0 {
		return 0
	}
	fits := func(words int) bool { return budget.Tokens(strings.Repeat("w ", words)) <= budgetTokens }
	w := int(float64(budgetTokens) / budget.TokensPerWord)
	for w > 0 && !fits(w) {
		w--
	}
	for fits(w + 1) {
		w++
	}
	return w
}

// firstWords returns s up to the end of its n-th word (words as strings.Fields splits them);
// s itself when it has at most n words.
func firstWords(s string, n int) string {
	inWord := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && inWord {
			n--
			if n == 0 {
				return s[:i]
			}
		}
		inWord = !space
	}
	return s
}

// NormalizeSpace collapses every run of white space in s to one space and trims both ends.
func NormalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// StrictCredit returns the covered fraction of the distinct evidence ids, where an evidence
// turn is covered iff its own text (evidenceText[i] for evidence[i], white space normalised on
// both sides by [NormalizeSpace]) lies whole inside delivered. A turn with an empty text is
// never covered. Empty evidence gives [ErrNoEvidence]; evidence and evidenceText must have the
// same length.
func StrictCredit(delivered string, evidence, evidenceText []string) (float64, error) {
	return credit(delivered, nil, evidence, evidenceText)
}

// LenientCredit is [StrictCredit] over d.Text, where in addition every source id of a hit
// delivered whole counts as covered; it is never below the strict credit.
func LenientCredit(d Delivery, evidence, evidenceText []string) (float64, error) {
	return credit(d.Text, d.Sources, evidence, evidenceText)
}

// credit is the covered fraction of the distinct evidence ids: those in ids, and those whose
// text lies inside delivered.
func credit(delivered string, ids, evidence, evidenceText []string) (float64, error) {
	if len(evidence) != len(evidenceText) {
		return 0, fmt.Errorf("error crediting evidence: %d ids but %d texts", len(evidence), len(evidenceText))
	}
	have := make(map[string]bool, len(ids))
	for _, id := range ids {
		have[id] = true
	}
	norm := NormalizeSpace(delivered)
	seen := make(map[string]bool, len(evidence))
	covered := 0
	for i, id := range evidence {
		if seen[id] {
			continue
		}
		seen[id] = true
		t := NormalizeSpace(evidenceText[i])
		if have[id] || (t != "" && strings.Contains(norm, t)) {
			covered++
		}
	}
	if len(seen) == 0 {
		return 0, ErrNoEvidence
	}
	return float64(covered) / float64(len(seen)), nil
}

// BudgetFigures are the figures at one context budget: one question's, or the mean over a
// group of questions.
type BudgetFigures struct {
	// Tokens is the budget in estimated tokens.
	Tokens int `json:"tokens"`
	// Chars is the number of characters delivered by packing the hits.
	Chars float64 `json:"chars"`
	// Strict is the strict credit of the packed hits ([StrictCredit]).
	Strict float64 `json:"strict"`
	// Lenient is the lenient credit of the packed hits ([LenientCredit]).
	Lenient float64 `json:"lenient"`
	// ContextStrict is the strict credit of the system's own block at this budget; nil for
	// systems that are no [ContextSystem].
	ContextStrict *float64 `json:"context_strict,omitempty"`
	// ContextChars is the number of characters of that block; nil like ContextStrict.
	ContextChars *float64 `json:"context_chars,omitempty"`
}

// scoreBudgets returns q's figures at every budget of [Budgets] for hits, asking sys for its
// own block when it is a [ContextSystem], and the time spent in Context.
func scoreBudgets(ctx context.Context, sys System, tenant string, now time.Time, q Query, hits []Hit) (
	[]BudgetFigures, time.Duration, error,
) {
	cs, hasContext := sys.(ContextSystem)
	var spent time.Duration
	out := make([]BudgetFigures, 0, len(Budgets()))
	for _, b := range Budgets() {
		d := Pack(hits, b)
		strict, err := StrictCredit(d.Text, q.Evidence, q.EvidenceText)
		if err != nil {
			return nil, spent, err
		}
		lenient, err := LenientCredit(d, q.Evidence, q.EvidenceText)
		if err != nil {
			return nil, spent, err
		}
		f := BudgetFigures{Tokens: b, Chars: float64(utf8.RuneCountInString(d.Text)), Strict: strict, Lenient: lenient}
		if hasContext {
			t0 := time.Now()
			block, err := cs.Context(ctx, tenant, q.Text, now, b)
			spent += time.Since(t0)
			if err != nil {
				return nil, spent, fmt.Errorf("context at %d tokens: %w", b, err)
			}
			if n := budget.Tokens(block); n > b {
				return nil, spent, fmt.Errorf("context at %d tokens is %d tokens long", b, n)
			}
			cst, err := StrictCredit(block, q.Evidence, q.EvidenceText)
			if err != nil {
				return nil, spent, err
			}
			f.ContextStrict = new(cst)
			f.ContextChars = new(float64(utf8.RuneCountInString(block)))
		}
		out = append(out, f)
	}
	return out, spent, nil
}
