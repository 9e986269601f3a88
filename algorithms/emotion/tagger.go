package emotion

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/zenbrain/zb/algorithms/forgetting"
)

var (
	// ErrEmptyText is returned, together with the neutral tag, for text that
	// is empty or only white space.
	ErrEmptyText = errors.New("emotion: empty text")
	// ErrUnknownLang is returned for a language other than LangAuto,
	// LangEnglish and LangGerman.
	ErrUnknownLang = errors.New("emotion: unknown language")
)

// Defaults of [Config].
const (
	// AlphaDefault is the default [Config].Alpha, α₀ of the valence normalisation.
	AlphaDefault = 1.0
	// AlphaPerWordDefault is the default [Config].AlphaPerWord, α₁ per word.
	AlphaPerWordDefault = 0.02
	// NegationWindowDefault is the default [Config].NegationWindow in tokens.
	NegationWindowDefault = 3
	// NegationFactorDefault is the default [Config].NegationFactor: flip and halve.
	NegationFactorDefault = -0.5
	// NegatedArousalFactorDefault is the default [Config].NegatedArousalFactor.
	NegatedArousalFactorDefault = 0.5
	// NegatedSignificanceFactorDefault is the default [Config].NegatedSignificanceFactor.
	NegatedSignificanceFactorDefault = 0.3
	// CapsEmphasisDefault is the default [Config].CapsEmphasis.
	CapsEmphasisDefault = 1.3
	// ExclamationStepDefault is the default [Config].ExclamationStep.
	ExclamationStepDefault = 0.15
	// ExclamationMaxDefault is the default [Config].ExclamationMax.
	ExclamationMaxDefault = 0.45
	// CapsArousalStepDefault is the default [Config].CapsArousalStep.
	CapsArousalStepDefault = 0.15
	// CapsArousalMaxDefault is the default [Config].CapsArousalMax.
	CapsArousalMaxDefault = 0.3
	// IntensifierArousalStepDefault is the default [Config].IntensifierArousalStep.
	IntensifierArousalStepDefault = 0.05
	// IntensifierArousalMaxDefault is the default [Config].IntensifierArousalMax.
	IntensifierArousalMaxDefault = 0.15
	// ContrastBeforeDefault is the default [Config].ContrastBefore.
	ContrastBeforeDefault = 0.5
	// ContrastAfterDefault is the default [Config].ContrastAfter.
	ContrastAfterDefault = 1.5
	// WeightArousalDefault is the default [Config].WeightArousal.
	WeightArousalDefault = 0.3
	// WeightSignificanceDefault is the default [Config].WeightSignificance.
	WeightSignificanceDefault = 0.5
	// WeightValenceDefault is the default [Config].WeightValence.
	WeightValenceDefault = 0.2
	maxIntensifierChain  = 2
)

// Config holds the tagger's parameters. Zero fields take their defaults
// ([Config.WithDefaults]); the package documentation gives the formulas.
type Config struct {
	// Alpha is α₀ in the valence normalisation V = Σv/√((Σv)² + α₀ + α₁·words).
	// Defaults to 1.
	Alpha float64
	// AlphaPerWord is α₁: longer texts need more cues for the same valence.
	// Defaults to 0.02.
	AlphaPerWord float64
	// NegationWindow is how many tokens after a negator (within its clause)
	// it reaches. Defaults to 3.
	NegationWindow int
	// NegationFactor multiplies the valence of a negated cue: negative flips
	// it, |factor| < 1 damps it ("not good" is milder than "bad"). Defaults
	// to −0.5.
	NegationFactor float64
	// NegatedArousalFactor multiplies the arousal of a negated cue.
	// Defaults to 0.5.
	NegatedArousalFactor float64
	// NegatedSignificanceFactor multiplies a negated significance cue ("not
	// important"). Defaults to 0.3.
	NegatedSignificanceFactor float64
	// CapsEmphasis multiplies a cue written in ALL CAPS. Defaults to 1.3.
	CapsEmphasis float64
	// ExclamationStep is the arousal each "!" adds, up to ExclamationMax.
	// Defaults to 0.15.
	ExclamationStep float64
	// ExclamationMax caps the arousal from exclamation marks. Defaults to 0.45.
	ExclamationMax float64
	// CapsArousalStep is the arousal each emphatic ALL-CAPS word adds, up to
	// CapsArousalMax. Defaults to 0.15.
	CapsArousalStep float64
	// CapsArousalMax caps the arousal from ALL-CAPS words. Defaults to 0.3.
	CapsArousalMax float64
	// IntensifierArousalStep is the arousal each amplifying intensifier adds,
	// up to IntensifierArousalMax. Defaults to 0.05.
	IntensifierArousalStep float64
	// IntensifierArousalMax caps the arousal from intensifiers. Defaults to 0.15.
	IntensifierArousalMax float64
	// ContrastBefore multiplies the valence of cues before a contrast word
	// ("but", "aber") in the same sentence. Defaults to 0.5.
	ContrastBefore float64
	// ContrastAfter multiplies the valence of cues after a contrast word in
	// the same sentence. Defaults to 1.5.
	ContrastAfter float64
	// WeightArousal is the arousal weight of the consolidation weight.
	// Defaults to 0.3.
	WeightArousal float64
	// WeightSignificance is the significance weight of the consolidation
	// weight. Defaults to 0.5.
	WeightSignificance float64
	// WeightValence is the |valence| weight of the consolidation weight.
	// Defaults to 0.2.
	WeightValence float64
}

// DefaultConfig returns the default configuration.
func DefaultConfig() Config {
	var c *Config
	return c.WithDefaults()
}

// WithDefaults returns a copy of c with zero fields replaced by defaults. A
// nil c yields [DefaultConfig].
func (c *Config) WithDefaults() Config {
	var o Config
	if c != nil {
		o = *c
	}
	o.Alpha = cmp.Or(o.Alpha, AlphaDefault)
	o.AlphaPerWord = cmp.Or(o.AlphaPerWord, AlphaPerWordDefault)
	o.NegationWindow = cmp.Or(o.NegationWindow, NegationWindowDefault)
	o.NegationFactor = cmp.Or(o.NegationFactor, NegationFactorDefault)
	o.NegatedArousalFactor = cmp.Or(o.NegatedArousalFactor, NegatedArousalFactorDefault)
	o.NegatedSignificanceFactor = cmp.Or(o.NegatedSignificanceFactor, NegatedSignificanceFactorDefault)
	o.CapsEmphasis = cmp.Or(o.CapsEmphasis, CapsEmphasisDefault)
	o.ExclamationStep = cmp.Or(o.ExclamationStep, ExclamationStepDefault)
	o.ExclamationMax = cmp.Or(o.ExclamationMax, ExclamationMaxDefault)
	o.CapsArousalStep = cmp.Or(o.CapsArousalStep, CapsArousalStepDefault)
	o.CapsArousalMax = cmp.Or(o.CapsArousalMax, CapsArousalMaxDefault)
	o.IntensifierArousalStep = cmp.Or(o.IntensifierArousalStep, IntensifierArousalStepDefault)
	o.IntensifierArousalMax = cmp.Or(o.IntensifierArousalMax, IntensifierArousalMaxDefault)
	o.ContrastBefore = cmp.Or(o.ContrastBefore, ContrastBeforeDefault)
	o.ContrastAfter = cmp.Or(o.ContrastAfter, ContrastAfterDefault)
	o.WeightArousal = cmp.Or(o.WeightArousal, WeightArousalDefault)
	o.WeightSignificance = cmp.Or(o.WeightSignificance, WeightSignificanceDefault)
	o.WeightValence = cmp.Or(o.WeightValence, WeightValenceDefault)
	return o
}

// Validate reports the first invalid field of c by name.
func (c Config) Validate() error {
	fields := []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"Alpha", c.Alpha, 1e-9, 100},
		{"AlphaPerWord", c.AlphaPerWord, 0, 10},
		{"NegationFactor", c.NegationFactor, -1, 1},
		{"NegatedArousalFactor", c.NegatedArousalFactor, 0, 1},
		{"NegatedSignificanceFactor", c.NegatedSignificanceFactor, 0, 1},
		{"CapsEmphasis", c.CapsEmphasis, 1, 3},
		{"ExclamationStep", c.ExclamationStep, 0, 1},
		{"ExclamationMax", c.ExclamationMax, 0, 1},
		{"CapsArousalStep", c.CapsArousalStep, 0, 1},
		{"CapsArousalMax", c.CapsArousalMax, 0, 1},
		{"IntensifierArousalStep", c.IntensifierArousalStep, 0, 1},
		{"IntensifierArousalMax", c.IntensifierArousalMax, 0, 1},
		{"ContrastBefore", c.ContrastBefore, 0, 3},
		{"ContrastAfter", c.ContrastAfter, 0, 3},
		{"WeightArousal", c.WeightArousal, 0, 1},
		{"WeightSignificance", c.WeightSignificance, 0, 1},
		{"WeightValence", c.WeightValence, 0, 1},
	}
	for _, f := range fields {
		if math.IsNaN(f.v) || f.v < f.lo || f.v > f.hi {
			return fmt.Errorf("emotion: Config.%s must be in [%v, %v], got %v", f.name, f.lo, f.hi, f.v)
		}
	}
	if c.NegationWindow < 1 || c.NegationWindow > 10 {
		return fmt.Errorf("emotion: Config.NegationWindow must be in [1, 10], got %d", c.NegationWindow)
	}
	return nil
}

// SignalKind classifies a [Signal].
type SignalKind string

// The kinds of signals.
const (
	// KindPositive is a cue with positive valence.
	KindPositive SignalKind = "positive"
	// KindNegative is a cue with negative valence.
	KindNegative SignalKind = "negative"
	// KindArousal is a cue of arousal without polarity ("urgent").
	KindArousal SignalKind = "arousal"
	// KindSignificance is a significance cue without polarity ("birthday").
	KindSignificance SignalKind = "significance"
	// KindExclamation is the exclamation marks of the text, as one signal.
	KindExclamation SignalKind = "exclamation"
	// KindCaps is the emphatic ALL-CAPS words of the text, as one signal.
	KindCaps SignalKind = "caps"
	// KindIntensifier is the amplifying intensifiers of the text, as one signal.
	KindIntensifier SignalKind = "intensifier"
)

// Signal is one piece of evidence behind a [Tag], so that every tag can be
// explained word by word.
type Signal struct {
	// Kind is the kind of evidence.
	Kind SignalKind
	// Word is the text as written (words of a phrase joined by spaces); for
	// aggregate kinds it is the count, e.g. "3×!".
	Word string
	// Term is the lexicon term matched.
	Term string
	// Via says how the term matched: "exact", "phrase", "inflection",
	// "compound head" or "compound modifier".
	Via string
	// Intensity is the product of the intensifiers in front of the cue
	// (1 when none).
	Intensity float64
	// Negated reports whether a negator reached the cue.
	Negated bool
	// Emphasized reports whether the cue was written in ALL CAPS.
	Emphasized bool
	// Valence is the cue's contribution to the valence sum Σv.
	Valence float64
	// Arousal is the cue's arousal, combined with the others by noisy-or.
	Arousal float64
	// Significance is the cue's significance, combined by noisy-or.
	Significance float64
}

// Tag is the emotional tag of a text.
type Tag struct {
	// Valence is the sentiment in [−1, 1].
	Valence float64
	// Arousal is the activation in [0, 1].
	Arousal float64
	// Significance is how much the content asks to be remembered, in [0, 1].
	Significance float64
	// DecayMultiplier is m_emo = clamp(1 + 2·max(|valence|, arousal,
	// significance), 1, 3), the factor on the memory's stability.
	DecayMultiplier float64
	// ConsolidationWeight is clamp(0.3·arousal + 0.5·significance +
	// 0.2·|valence|, 0, 1) with the default weights: the priority of the
	// memory for consolidation.
	ConsolidationWeight float64
	// Lang is the language the text was tagged in.
	Lang Lang
	// Signals are the evidence, in text order, aggregates last.
	Signals []Signal
}

// neutralTag is the tag of text without any cue.
func neutralTag(lang Lang) Tag {
	return Tag{DecayMultiplier: forgetting.EmotionalMultiplierMin, Lang: lang}
}

// Tagger tags texts with valence, arousal and significance using the English
// and German lexicons embedded in the package. It holds no mutable state and
// is safe for concurrent use.
type Tagger struct {
	cfg       Config
	lex       map[Lang]*lexicon
	emoticons []string
}

// NewTagger returns a Tagger for cfg with defaults applied (nil means
// [DefaultConfig]), or an error naming the first invalid field.
func NewTagger(cfg *Config) (*Tagger, error) {
	c := cfg.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	t := &Tagger{cfg: c, lex: map[Lang]*lexicon{}}
	for _, lang := range []Lang{LangEnglish, LangGerman} {
		l, err := loadLexicon(lang)
		if err != nil {
			return nil, err
		}
		t.lex[lang] = l
	}
	t.emoticons = emoticonsOf(t.lex[LangEnglish], t.lex[LangGerman])
	return t, nil
}

// Config returns the tagger's configuration, defaults applied.
func (t *Tagger) Config() Config { return t.cfg }

// Tag tags text, detecting its language (see [Tagger.TagLang]).
func (t *Tagger) Tag(text string) (Tag, error) { return t.TagLang(text, LangAuto) }

// TagLang tags text in lang. With [LangAuto] the language is the one with more
// function words; if that is undecided, the text is tagged in both languages
// and the one with more cues wins (English on a tie). Empty or white-space-only
// text returns the neutral tag (all zero, DecayMultiplier 1) and
// [ErrEmptyText]; an unknown lang returns [ErrUnknownLang]. Invalid UTF-8 is
// read as spaces.
func (t *Tagger) TagLang(text string, lang Lang) (Tag, error) {
	switch lang {
	case LangAuto, LangEnglish, LangGerman:
	default:
		return Tag{}, fmt.Errorf("error tagging text in %q: %w", string(lang), ErrUnknownLang)
	}
	if strings.TrimSpace(text) == "" {
		return neutralTag(lang), ErrEmptyText
	}
	tk := tokenize(text, t.emoticons)
	if lang == LangAuto {
		lang = detectLang(tk.tokens)
	}
	if lang != LangAuto {
		return t.tag(tk, lang), nil
	}
	en := t.tag(tk, LangEnglish)
	de := t.tag(tk, LangGerman)
	if cueCount(de) > cueCount(en) {
		return de, nil
	}
	return en, nil
}

func cueCount(tag Tag) int {
	n := 0
	for _, s := range tag.Signals {
		switch s.Kind {
		case KindPositive, KindNegative, KindArousal, KindSignificance:
			n++
		}
	}
	return n
}

// Score builds a Tag from valence, arousal and significance given by another
// source (an LLM extractor, a stored row), computing the decay multiplier and
// consolidation weight. Values outside [−1, 1] / [0, 1], NaN or ±Inf return
// an error.
func (t *Tagger) Score(valence, arousal, significance float64) (Tag, error) {
	m, err := forgetting.EmotionalMultiplier(valence, arousal, significance)
	if err != nil {
		return Tag{}, fmt.Errorf("error scoring emotional tag: %w", err)
	}
	return Tag{
		Valence: valence, Arousal: arousal, Significance: significance,
		DecayMultiplier: m, ConsolidationWeight: t.consolidationWeight(valence, arousal, significance),
	}, nil
}

func (t *Tagger) consolidationWeight(v, a, s float64) float64 {
	w := t.cfg.WeightArousal*a + t.cfg.WeightSignificance*s + t.cfg.WeightValence*math.Abs(v)
	return clamp(w, 0, 1)
}

func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return lo
	}
	return min(max(v, lo), hi)
}

// span is a run of tokens matched as one lexicon item.
type span struct {
	start, end int // tokens [start, end)
	matches    []match
}

// roles of tokens that modify cues.
type roles struct {
	negator     []bool
	intensifier []float64
	contrast    []bool
}

func (t *Tagger) tag(tk tokenized, lang Lang) Tag {
	lex := t.lex[lang]
	toks := tk.tokens
	n := len(toks)
	r := roles{negator: make([]bool, n), intensifier: make([]float64, n), contrast: make([]bool, n)}
	var cues []span

	// Pass 1: phrases (longest first), then single words.
	for i := 0; i < n; {
		if L, e := lex.phraseAt(toks, i); e != nil {
			// Role phrases ("kind of", "a bit") act from their last token.
			last := i + L - 1
			switch {
			case e.negator:
				r.negator[last] = true
			case e.intensifier > 0:
				r.intensifier[last] = e.intensifier
			case e.contrast:
				r.contrast[last] = true
			case e.isCue():
				cues = append(cues, span{start: i, end: i + L, matches: []match{{e: e, via: "phrase", factor: 1}}})
			}
			i += L
			continue
		}
		low := toks[i].low
		if e := lex.words[low]; e != nil && (e.negator || e.intensifier > 0 || e.contrast) {
			r.negator[i] = e.negator
			r.intensifier[i] = e.intensifier
			r.contrast[i] = e.contrast
			i++
			continue
		}
		if !strings.ContainsAny(low, "0123456789") {
			if ms := lex.lookupCue(low); len(ms) > 0 {
				cues = append(cues, span{start: i, end: i + 1, matches: ms})
			}
		}
		i++
	}

	// ALL CAPS: emphatic on lexicon words; on any word when the text shouts.
	lettered, capsWords := 0, 0
	for _, tok := range toks {
		if tok.letters >= 2 {
			lettered++
			if tok.caps {
				capsWords++
			}
		}
	}
	// Shouting needs two thirds of the words in capitals, so a few acronyms
	// ("The API returns JSON") do not count.
	shouting := lettered >= 3 && 3*capsWords >= 2*lettered
	emphatic := 0
	for i, tok := range toks {
		if tok.caps && (shouting || r.negator[i] || r.intensifier[i] > 0) {
			emphatic++
		}
	}

	cfg := t.cfg
	var sumV float64
	arousalKeep, sigKeep := 1.0, 1.0
	signals := make([]Signal, 0, len(cues)+3)
	cueAt := make([]bool, n)
	for _, c := range cues {
		for k := c.start; k < c.end; k++ {
			cueAt[k] = true
		}
	}
	for _, c := range cues {
		first := toks[c.start]
		intensity := 1.0
		for j, steps := c.start-1, 0; j >= 0 && steps < maxIntensifierChain && toks[j].clause == first.clause && r.intensifier[j] > 0; j, steps = j-1, steps+1 {
			intensity *= r.intensifier[j]
		}
		negated := t.negatedBefore(toks, r, c.start)
		if !negated && lang == LangGerman {
			negated = t.negatedAfter(toks, r, cueAt, c.end-1)
		}
		emphasized := false
		words := make([]string, 0, c.end-c.start)
		for k := c.start; k < c.end; k++ {
			words = append(words, toks[k].raw)
			if toks[k].caps {
				emphasized = true
			}
		}
		if emphasized && !shouting {
			emphatic++
		}
		capsF := 1.0
		if emphasized {
			capsF = cfg.CapsEmphasis
		}
		contrastF := 1.0
		if hasContrast(toks, r, c.end, n, first.sentence) {
			contrastF = cfg.ContrastBefore
		} else if hasContrast(toks, r, 0, c.start, first.sentence) {
			contrastF = cfg.ContrastAfter
		}
		for _, m := range c.matches {
			v := m.e.valence * m.factor * intensity * capsF * contrastF
			a := clamp(m.e.arousal*m.factor*intensity*capsF, 0, 1)
			s := clamp(m.e.sig*m.factor*intensity*capsF, 0, 1)
			if negated {
				if v != 0 {
					v *= cfg.NegationFactor
				}
				a *= cfg.NegatedArousalFactor
				s *= cfg.NegatedSignificanceFactor
			}
			sumV += v
			arousalKeep *= 1 - a
			sigKeep *= 1 - s
			kind := KindSignificance
			switch {
			case m.e.valence > 0:
				kind = KindPositive
			case m.e.valence < 0:
				kind = KindNegative
			case m.e.arousal > 0:
				kind = KindArousal
			}
			signals = append(signals, Signal{
				Kind: kind, Word: strings.Join(words, " "), Term: m.e.term, Via: m.via,
				Intensity: intensity, Negated: negated, Emphasized: emphasized,
				Valence: v, Arousal: a, Significance: s,
			})
		}
	}

	if tk.exclamations > 0 {
		e := min(cfg.ExclamationStep*float64(tk.exclamations), cfg.ExclamationMax)
		arousalKeep *= 1 - e
		signals = append(signals, Signal{Kind: KindExclamation, Word: fmt.Sprintf("%d×!", tk.exclamations), Intensity: 1, Arousal: e})
	}
	if emphatic > 0 {
		e := min(cfg.CapsArousalStep*float64(emphatic), cfg.CapsArousalMax)
		arousalKeep *= 1 - e
		signals = append(signals, Signal{Kind: KindCaps, Word: fmt.Sprintf("%d×CAPS", emphatic), Intensity: 1, Arousal: e})
	}
	amplifiers := 0
	for _, f := range r.intensifier {
		if f > 1 {
			amplifiers++
		}
	}
	if amplifiers > 0 {
		e := min(cfg.IntensifierArousalStep*float64(amplifiers), cfg.IntensifierArousalMax)
		arousalKeep *= 1 - e
		signals = append(signals, Signal{Kind: KindIntensifier, Word: fmt.Sprintf("%d×intensifier", amplifiers), Intensity: 1, Arousal: e})
	}

	words := 0
	for _, tok := range toks {
		if tok.letters > 0 {
			words++
		}
	}
	alpha := cfg.Alpha + cfg.AlphaPerWord*float64(words)
	tag := Tag{
		Valence:      clamp(sumV/math.Sqrt(sumV*sumV+alpha), -1, 1),
		Arousal:      clamp(1-arousalKeep, 0, 1),
		Significance: clamp(1-sigKeep, 0, 1),
		Lang:         lang,
		Signals:      signals,
	}
	// In range by construction, so EmotionalMultiplier cannot fail.
	tag.DecayMultiplier, _ = forgetting.EmotionalMultiplier(tag.Valence, tag.Arousal, tag.Significance)
	tag.ConsolidationWeight = t.consolidationWeight(tag.Valence, tag.Arousal, tag.Significance)
	return tag
}

// phraseAt returns the length and entry of the longest phrase starting at
// token i within one clause, or 0, nil.
func (l *lexicon) phraseAt(toks []token, i int) (int, *entry) {
	for L := min(l.maxPhrase, len(toks)-i); L >= 2; L-- {
		if toks[i+L-1].clause != toks[i].clause {
			continue
		}
		lows := make([]string, L)
		for k := range L {
			lows[k] = toks[i+k].low
		}
		if e := l.phrases[strings.Join(lows, " ")]; e != nil {
			return L, e
		}
	}
	return 0, nil
}

// negatedBefore reports whether a negator precedes token start within the
// negation window and the same clause.
func (t *Tagger) negatedBefore(toks []token, r roles, start int) bool {
	for j := start - 1; j >= 0 && j >= start-t.cfg.NegationWindow && toks[j].clause == toks[start].clause; j-- {
		if r.negator[j] {
			return true
		}
	}
	return false
}

// negatedAfter implements German post-negation ("Ich mag das nicht"): a
// negator that is the last word of its clause negates the nearest preceding
// cue within the window, if no other cue lies between them.
func (t *Tagger) negatedAfter(toks []token, r roles, cueAt []bool, last int) bool {
	clause := toks[last].clause
	for k := last + 1; k < len(toks) && k <= last+t.cfg.NegationWindow && toks[k].clause == clause; k++ {
		if cueAt[k] {
			return false
		}
		if r.negator[k] {
			return k == len(toks)-1 || toks[k+1].clause != clause
		}
	}
	return false
}

// hasContrast reports whether a contrast word lies in tokens [from, to) of
// the given sentence.
func hasContrast(toks []token, r roles, from, to, sentence int) bool {
	for k := from; k < to; k++ {
		if r.contrast[k] && toks[k].sentence == sentence {
			return true
		}
	}
	return false
}
