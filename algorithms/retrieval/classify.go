package retrieval

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Rule is one row of the query-classification table: when Pattern matches a
// query, Weight is added to Class's score. Each rule counts at most once per
// query. Patterns are RE2 bodies matched against [textproc.Normalize]d text
// with typographic apostrophes replaced by ', and, like [DateRule] patterns,
// only match at word boundaries on both sides. A leading ^ anchors at the
// start of the query.
type Rule struct {
	// Name identifies the rule in [Classification.Matched].
	Name string
	// Lang is the language the pattern is written for (documentation only;
	// every rule runs on every query).
	Lang textproc.Lang
	// Class is the class the rule votes for; it must not be ClassGeneral.
	Class QueryClass
	// Pattern is the RE2 body.
	Pattern string
	// Weight is added to the class score on a match; it must be positive and
	// finite.
	Weight float64
}

// Classifier defaults.
const (
	// DateWeightDefault is the temporal score added when the query contains at
	// least one resolvable date expression.
	DateWeightDefault = 2.0
	// MinScoreDefault is the score a class needs to be chosen; below it the
	// query is ClassGeneral.
	MinScoreDefault = 0.75
	// MaxQueryBytes bounds the work per query: [Classifier.Classify] reads
	// only the first MaxQueryBytes bytes of a query (cut at a rune
	// boundary). Recall queries are questions, not documents.
	MaxQueryBytes = 4096
)

// ClassifierConfig configures a [Classifier].
type ClassifierConfig struct {
	// Rules is the classification table. Nil means [DefaultRules].
	Rules []Rule
	// DateRules is the date-extraction table. Nil means [DefaultDateRules].
	DateRules []DateRule
	// DateWeight is added to the temporal score when a date is found.
	// Defaults to DateWeightDefault; a negative value disables it (0 is
	// replaced by the default).
	DateWeight float64
	// MinScore is the least winning score; lower scores give ClassGeneral.
	// Defaults to MinScoreDefault.
	MinScore float64
}

// WithDefaults returns a copy of c with zero fields replaced by defaults. A
// nil c gives the defaults.
func (c *ClassifierConfig) WithDefaults() *ClassifierConfig {
	out := ClassifierConfig{}
	if c != nil {
		out = *c
	}
	if out.Rules == nil {
		out.Rules = DefaultRules()
	}
	if out.DateRules == nil {
		out.DateRules = DefaultDateRules()
	}
	if out.DateWeight == 0 {
		out.DateWeight = DateWeightDefault
	}
	if out.DateWeight < 0 {
		out.DateWeight = 0
	}
	if out.MinScore == 0 {
		out.MinScore = MinScoreDefault
	}
	return &out
}

// Classifier assigns a [QueryClass] to recall queries and extracts their date
// expressions. A Classifier is immutable and safe for concurrent use.
type Classifier struct {
	cfg   ClassifierConfig
	rules []ruleMatcher
	dates []dateMatcher
}

type ruleMatcher struct {
	rule     Rule
	anchored bool
	re       *regexp.Regexp
	lits     [][]string // requiredLiterals of the pattern
}

// NewClassifier compiles the rules of cfg (nil: all defaults). It returns an
// error naming the rule whose pattern does not compile, whose class is not
// temporal, procedural or factual, or whose weight is not positive and
// finite.
func NewClassifier(cfg *ClassifierConfig) (*Classifier, error) {
	c := cfg.WithDefaults()
	if math.IsNaN(c.MinScore) || math.IsInf(c.MinScore, 0) || math.IsNaN(c.DateWeight) || math.IsInf(c.DateWeight, 0) {
		return nil, fmt.Errorf("error creating classifier: MinScore and DateWeight must be finite")
	}
	cl := &Classifier{cfg: *c}
	for _, r := range c.Rules {
		if r.Class != ClassTemporal && r.Class != ClassProcedural && r.Class != ClassFactual {
			return nil, fmt.Errorf("error creating classifier: rule %q has class %q", r.Name, r.Class)
		}
		if !(r.Weight > 0) || math.IsInf(r.Weight, 0) {
			return nil, fmt.Errorf("error creating classifier: rule %q has weight %v", r.Name, r.Weight)
		}
		body, anchored := strings.CutPrefix(r.Pattern, "^")
		re, err := compileBounded(body)
		if err != nil {
			return nil, fmt.Errorf("error creating classifier: rule %q: %w", r.Name, err)
		}
		cl.rules = append(cl.rules, ruleMatcher{rule: r, anchored: anchored, re: re, lits: requiredLiterals(body)})
	}
	dates, err := compileDateRules(c.DateRules)
	if err != nil {
		return nil, fmt.Errorf("error creating classifier: %w", err)
	}
	cl.dates = dates
	return cl, nil
}

// Classification is the result of [Classifier.Classify].
type Classification struct {
	// Class is the winning class.
	Class QueryClass
	// Lang is the query's language by [textproc.DetectLang].
	Lang textproc.Lang
	// Scores holds the score of each of temporal, procedural and factual.
	Scores map[QueryClass]float64
	// Matched lists the names of the matching rules in table order, then
	// "date" when a date expression was found.
	Matched []string
	// Dates lists the date expressions in order of appearance.
	Dates []DateRef
	// Range is the smallest range covering all Dates; nil when there are
	// none.
	Range *TimeRange
}

// normalizeQuery lower-cases and NFKC-normalizes q, maps typographic
// apostrophes to ' and collapses white space to single spaces.
func normalizeQuery(q string) string {
	if len(q) > MaxQueryBytes {
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut]
	}
	q = textproc.Normalize(q)
	q = strings.NewReplacer("\u2019", "'", "\u02BC", "'").Replace(q)
	return strings.Join(strings.Fields(q), " ")
}

// Classify classifies query (its first [MaxQueryBytes] bytes), resolving relative dates against now (in now's
// location). Scores are the sums of the weights of matching rules, plus
// DateWeight to temporal when a date is found. The class with the highest
// score wins if it reaches MinScore; ties go to temporal, then procedural,
// then factual. Otherwise, including for empty or invalid text, the class is
// ClassGeneral.
func (c *Classifier) Classify(query string, now time.Time) Classification {
	s := normalizeQuery(query)
	out := Classification{
		Class:  ClassGeneral,
		Lang:   textproc.DetectLang(s),
		Scores: map[QueryClass]float64{ClassTemporal: 0, ClassProcedural: 0, ClassFactual: 0},
	}
	for _, rm := range c.rules {
		if matchesRule(rm, s) {
			out.Scores[rm.rule.Class] += rm.rule.Weight
			out.Matched = append(out.Matched, rm.rule.Name)
		}
	}
	out.Dates = extractDates(c.dates, s, now)
	if len(out.Dates) > 0 {
		out.Scores[ClassTemporal] += c.cfg.DateWeight
		out.Matched = append(out.Matched, "date")
		r := out.Dates[0].Range
		for _, d := range out.Dates[1:] {
			if d.Range.From.Before(r.From) {
				r.From = d.Range.From
			}
			if d.Range.To.After(r.To) {
				r.To = d.Range.To
			}
		}
		out.Range = &r
	}
	best := 0.0
	for _, cl := range []QueryClass{ClassTemporal, ClassProcedural, ClassFactual} {
		if sc := out.Scores[cl]; sc > best && sc >= c.cfg.MinScore {
			best = sc
			out.Class = cl
		}
	}
	return out
}

func matchesRule(rm ruleMatcher, s string) bool {
	body := rm.re.SubexpIndex("body")
	for _, m := range boundedMatches(rm.re, rm.lits, s) {
		if !rm.anchored || m[2*body] == 0 {
			return true
		}
	}
	return false
}
