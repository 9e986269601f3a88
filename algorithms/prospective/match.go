package prospective

import (
	"cmp"
	"math"
	"strings"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Defaults of [MatchConfig].
const (
	// EntityOverlapDefault is the least overlap coefficient between a cue
	// entity's name and a text entity's name: 1 means the shorter name's
	// words all occur in the longer one ("Anna" ~ "Anna Schmidt").
	EntityOverlapDefault = 1.0
	// KeywordJaccardDefault is the least Jaccard similarity of cue and text
	// terms for a keyword match when not all cue terms are present.
	KeywordJaccardDefault = 0.5
	// EmbeddingThresholdDefault is the least cosine similarity of cue and
	// text embeddings.
	EmbeddingThresholdDefault = 0.8
)

// MatchConfig holds the thresholds of [MatchCue]. A zero field takes its
// default.
type MatchConfig struct {
	// EntityOverlap in (0, 1]. Defaults to [EntityOverlapDefault] (1).
	EntityOverlap float64
	// KeywordJaccard in (0, 1]. Defaults to [KeywordJaccardDefault] (0.5).
	KeywordJaccard float64
	// EmbeddingThreshold in (0, 1]. Defaults to
	// [EmbeddingThresholdDefault] (0.8).
	EmbeddingThreshold float64
	// DisableEntity, DisableKeyword and DisableEmbedding switch single
	// paths off (for ablation).
	DisableEntity, DisableKeyword, DisableEmbedding bool
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *MatchConfig) WithDefaults() *MatchConfig {
	if c == nil {
		c = &MatchConfig{}
	}
	out := *c
	out.EntityOverlap = cmp.Or(out.EntityOverlap, EntityOverlapDefault)
	out.KeywordJaccard = cmp.Or(out.KeywordJaccard, KeywordJaccardDefault)
	out.EmbeddingThreshold = cmp.Or(out.EmbeddingThreshold, EmbeddingThresholdDefault)
	return &out
}

func (c *MatchConfig) validate() error {
	for _, x := range []float64{c.EntityOverlap, c.KeywordJaccard, c.EmbeddingThreshold} {
		if math.IsNaN(x) || x <= 0 || x > 1 {
			return wrapf(ErrInvalidInput, "MatchConfig thresholds must be in (0, 1], got %+v", *c)
		}
	}
	return nil
}

// Reason names the path by which a cue matched.
type Reason string

// The match paths, in tie-break order.
const (
	// ReasonEntity is a match of a cue entity with an entity of the text.
	ReasonEntity Reason = "entity"
	// ReasonKeyword is a match of the cue's content terms in the text.
	ReasonKeyword Reason = "keyword"
	// ReasonEmbedding is a match of the embeddings.
	ReasonEmbedding Reason = "embedding"
)

// Match is the outcome of [MatchCue].
type Match struct {
	// Matched is true when at least one path fired.
	Matched bool `json:"matched"`
	// Reason is the firing path with the highest score (ties: entity,
	// keyword, embedding); empty when nothing fired.
	Reason Reason `json:"reason,omitempty"`
	// Score is the score of Reason's path.
	Score float64 `json:"score"`
	// Entity is the text entity that matched, when the entity path fired.
	Entity string `json:"entity,omitempty"`
	// EntityScore is the best overlap coefficient of cue and text entities.
	EntityScore float64 `json:"entity_score"`
	// KeywordScore is the share of distinct cue terms found in the text.
	KeywordScore float64 `json:"keyword_score"`
	// KeywordJaccard is the Jaccard similarity of cue and text terms.
	KeywordJaccard float64 `json:"keyword_jaccard"`
	// EmbeddingScore is the cosine similarity of the embeddings.
	EmbeddingScore float64 `json:"embedding_score"`
}

// nameTokens returns the normalized words of an entity name without English
// and German stop words ("my sister" → [sister]); a name made only of stop
// words keeps them all ("Will").
func nameTokens(name string) []string {
	toks := textproc.Tokens(name)
	var out []string
	for _, t := range toks {
		if !textproc.IsStopWord(t, textproc.English) && !textproc.IsStopWord(t, textproc.German) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return toks
	}
	return out
}

// overlap returns |A∩B| / min(|A|, |B|) over distinct strings, 0 when either
// is empty.
func overlap(a, b []string) float64 {
	sa := map[string]bool{}
	for _, x := range a {
		sa[x] = true
	}
	sb := map[string]bool{}
	for _, x := range b {
		sb[x] = true
	}
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	inter := 0
	for x := range sa {
		if sb[x] {
			inter++
		}
	}
	return float64(inter) / float64(min(len(sa), len(sb)))
}

// cosine returns the cosine similarity of a and b, 0 when either has zero
// norm.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// MatchCue checks whether text (with its extracted entities and its
// embedding) matches the cue of intention in. Three paths are tried:
//
//   - entity: some name in in.CueEntities and some name in entities have an
//     overlap coefficient |A∩B| / min(|A|, |B|) of their normalized words
//     (stop words dropped) of at least EntityOverlap (1: one name's words
//     all occur in the other);
//   - keyword: the cue's content terms ([textproc.Terms], stemmed in in.Lang,
//     or in the cue's detected language) all occur among the text's terms,
//     or their Jaccard similarity is at least KeywordJaccard (0.5);
//   - embedding: cos(in.CueEmbedding, embedding) ≥ EmbeddingThreshold (0.8);
//     skipped when either embedding is empty.
//
// A pending cue intention matches when any path fires; intentions that are
// not pending never match (no error). MatchCue returns an error wrapping
// [ErrInvalidInput] for an invalid intention, a time intention, embeddings
// of different dimensions or with NaN or infinite values, or an invalid cfg.
func MatchCue(in Intention, text string, entities []string, embedding []float32, cfg *MatchConfig) (Match, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return Match{}, err
	}
	if err := in.Validate(); err != nil {
		return Match{}, err
	}
	if in.Trigger != TriggerCue {
		return Match{}, wrapf(ErrInvalidInput, "intention %q has trigger %s, not cue", in.ID, in.Trigger)
	}
	for i, x := range embedding {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return Match{}, wrapf(ErrInvalidInput, "text embedding[%d] is %v", i, x)
		}
	}
	useEmb := !c.DisableEmbedding && len(in.CueEmbedding) > 0 && len(embedding) > 0
	if useEmb && len(in.CueEmbedding) != len(embedding) {
		return Match{}, wrapf(ErrInvalidInput, "cue embedding has %d dimensions, text embedding %d", len(in.CueEmbedding), len(embedding))
	}
	var m Match
	if in.Status != StatusPending {
		return m, nil
	}
	type fired struct {
		reason Reason
		score  float64
	}
	var hits []fired

	if !c.DisableEntity && len(in.CueEntities) > 0 {
		for _, cueName := range in.CueEntities {
			ct := nameTokens(cueName)
			for _, e := range entities {
				if o := overlap(ct, nameTokens(e)); o > m.EntityScore {
					m.EntityScore, m.Entity = o, e
				}
			}
		}
		if m.EntityScore >= c.EntityOverlap {
			hits = append(hits, fired{ReasonEntity, m.EntityScore})
		} else {
			m.Entity = ""
		}
	}

	if !c.DisableKeyword && strings.TrimSpace(in.Cue) != "" {
		lang := in.Lang
		if lang == "" {
			lang = textproc.DetectLang(in.Cue)
		}
		cueTerms := textproc.Terms(in.Cue, lang)
		if len(cueTerms) > 0 {
			textTerms := textproc.Terms(text, lang)
			have := map[string]bool{}
			for _, t := range textTerms {
				have[t] = true
			}
			distinct := map[string]bool{}
			found := 0
			for _, t := range cueTerms {
				if distinct[t] {
					continue
				}
				distinct[t] = true
				if have[t] {
					found++
				}
			}
			m.KeywordScore = float64(found) / float64(len(distinct))
			if len(textTerms) > 0 {
				m.KeywordJaccard = textproc.Jaccard(cueTerms, textTerms)
			}
			if m.KeywordScore == 1 || m.KeywordJaccard >= c.KeywordJaccard {
				hits = append(hits, fired{ReasonKeyword, m.KeywordScore})
			}
		}
	}

	if useEmb {
		m.EmbeddingScore = cosine(in.CueEmbedding, embedding)
		if m.EmbeddingScore >= c.EmbeddingThreshold {
			hits = append(hits, fired{ReasonEmbedding, m.EmbeddingScore})
		}
	}

	for _, h := range hits { // hits are in tie-break order
		if !m.Matched || h.score > m.Score {
			m.Matched, m.Reason, m.Score = true, h.reason, h.score
		}
	}
	return m, nil
}
