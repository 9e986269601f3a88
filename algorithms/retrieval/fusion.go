package retrieval

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Fusion defaults (DESIGN.md §5).
const (
	// HybridAlphaDefault is the weight of the normalized vector signal in the
	// hybrid score; BM25 gets 1 − HybridAlphaDefault. Measured on LoCoMo with
	// the default offline hash embedder (bench/locomo, zbctl bench locomo):
	// lexical evidence is the stronger signal there (BM25 alone R@5 0.554,
	// the hash vectors alone 0.396), and α = 0.3 beat 0.5 and 0.7 once the
	// conversational context is on. A semantic embedder (ollama, openai)
	// deserves a higher α, set through Config.HybridAlpha.
	HybridAlphaDefault = 0.3
	// BoostScaleDefault is the 0.2 of the Two-Factor boost 1 + 0.2·w·I^0.1.
	BoostScaleDefault = 0.2
	// BoostExponentDefault is the 0.1 of the Two-Factor boost.
	BoostExponentDefault = 0.1
	// ForgettingFloorDefault is the floor f of the forgetting multiplier
	// f + (1 − f)·R, chosen by measurement as DESIGN.md §6 asks: on LoCoMo
	// (per conversation, hash embedder) recall without forgetting gave R@5
	// 0.653, with f = 0.9 0.652 (cost 0.001 ≤ 0.01). With f = 0.5 the turns
	// of the latest session (R ≈ 1) would weigh up to twice as much as turns
	// weeks old (R ≈ 0), whatever their relevance. The full-lifecycle
	// figures are in the LoCoMo results (zbctl bench locomo).
	ForgettingFloorDefault = 0.9
	// DedupThresholdDefault is the token Jaccard above which two results are
	// duplicates and only the higher-scored one is kept.
	DedupThresholdDefault = 0.9
	// KDefault is the number of results returned.
	KDefault = 5
	// NeighbourWeightDefault is λ_n, the weight of the better hybrid score of
	// a memory's two neighbours in its session (the turn before and the turn
	// after): in a conversation the answer to a question often sits next to
	// the turn that shares its words. Measured on LoCoMo (bench/locomo).
	NeighbourWeightDefault = 0.5
	// SessionWeightDefault is λ_s, the weight of the BM25 of a memory's whole
	// session taken as one document (normalized by the best session among the
	// candidates): turns of the session that is about the query rank above
	// turns that only share a word with it. Measured on LoCoMo.
	SessionWeightDefault = 0.5
	// RegionWeightDefault is λ_r, the weight of the hybrid score of the
	// consolidated episode that carries a memory (its region of the
	// conversation): the same weight as a neighbour, since an episode is the
	// turn's wider neighbourhood found as one document.
	RegionWeightDefault = 0.5
	// SpeakerBoostDefault is β_s, the score multiplier 1 + β_s applied to a
	// memory whose speaker is named in the query.
	SpeakerBoostDefault = 0.3
	// ParticipantBoostDefault is β_p, the multiplier 1 + β_p (added to β_s)
	// applied to a memory one of whose session's speakers is named in the
	// query: names separate the conversations of different people.
	ParticipantBoostDefault = 0.2
	// TemporalEpisodicWeight is the default weight of the episodic layer for
	// temporal queries.
	TemporalEpisodicWeight = 2.0
	// FactualSemanticWeight is the default weight of the semantic layer for
	// factual queries.
	FactualSemanticWeight = 1.8
	// ProceduralProceduralWeight is the default weight of the procedural
	// layer for procedural queries.
	ProceduralProceduralWeight = 1.8
)

// Weights is the layer-weight table w_layer(class) of the magnitude fusion.
// A missing class or layer has weight 1.0.
type Weights map[QueryClass]map[Layer]float64

// DefaultWeights returns temporal → episodic 2.0, factual → semantic 1.8,
// procedural → procedural 1.8, and 1.0 everywhere else.
func DefaultWeights() Weights {
	return Weights{
		ClassTemporal:   {LayerEpisodic: TemporalEpisodicWeight},
		ClassFactual:    {LayerSemantic: FactualSemanticWeight},
		ClassProcedural: {LayerProcedural: ProceduralProceduralWeight},
	}
}

// Weight returns w_layer(class), 1.0 when the table has no entry.
func (w Weights) Weight(class QueryClass, layer Layer) float64 {
	if v, ok := w[class][layer]; ok {
		return v
	}
	return 1.0
}

// Validate returns an error naming the first entry (in class and layer order)
// that is not a valid class, not a valid layer, or not finite and ≥ 0.
func (w Weights) Validate() error {
	for _, c := range Classes() {
		for _, l := range Layers() {
			if v, ok := w[c][l]; ok && (math.IsNaN(v) || math.IsInf(v, 0) || v < 0) {
				return fmt.Errorf("weight for class %s layer %s is %v, want finite and ≥ 0", c, l, v)
			}
		}
	}
	for c, row := range w {
		if !c.Valid() {
			return fmt.Errorf("weights name unknown class %q", c)
		}
		for l := range row {
			if !l.Valid() {
				return fmt.Errorf("weights for class %s name unknown layer %q", c, l)
			}
		}
	}
	return nil
}

// Config configures [Rank]. The zero value, or nil, means all defaults.
type Config struct {
	// Weights is the layer-weight table. Nil means DefaultWeights.
	Weights Weights
	// HybridAlpha weighs the normalized vector signal against normalized
	// BM25: hybrid = α·vector + (1 − α)·bm25. Defaults to
	// HybridAlphaDefault; a negative value means 0 (BM25 only). Values above
	// 1 are an error.
	HybridAlpha float64
	// BoostScale is the scale of the Two-Factor boost. Defaults to
	// BoostScaleDefault.
	BoostScale float64
	// BoostExponent is the importance exponent of the Two-Factor boost.
	// Defaults to BoostExponentDefault.
	BoostExponent float64
	// ForgettingFloor is f in f + (1 − f)·R. Defaults to
	// ForgettingFloorDefault; a negative value means 0 (pure R). Values above
	// 1 are an error.
	ForgettingFloor float64
	// DedupThreshold is the token Jaccard above which results are duplicates.
	// Defaults to DedupThresholdDefault; a value ≥ 1 disables deduplication.
	DedupThreshold float64
	// K is the number of results. Defaults to KDefault; −1 returns all.
	K int
	// NeighbourWeight is λ_n of the context score. Defaults to
	// NeighbourWeightDefault; a negative value means 0.
	NeighbourWeight float64
	// SessionWeight is λ_s of the context score. Defaults to
	// SessionWeightDefault; a negative value means 0.
	SessionWeight float64
	// RegionWeight is λ_r of the context score. Defaults to
	// RegionWeightDefault; a negative value means 0.
	RegionWeight float64
	// SpeakerBoost is β_s of the entity multiplier. Defaults to
	// SpeakerBoostDefault; a negative value means 0.
	SpeakerBoost float64
	// ParticipantBoost is β_p of the entity multiplier. Defaults to
	// ParticipantBoostDefault; a negative value means 0.
	ParticipantBoost float64
	// DisableContext makes λ_n, λ_s, β_s and β_p 0 (ablation of the
	// conversational context: neighbours, sessions and speakers).
	DisableContext bool
	// DisableLayerWeights makes every layer weight 1 (ablation of
	// query_routing).
	DisableLayerWeights bool
	// DisableTwoFactorBoost skips the Two-Factor boost (ablation of
	// two_factor_hebbian in recall).
	DisableTwoFactorBoost bool
	// DisableForgetting skips the forgetting multiplier (ablation of decay in
	// recall).
	DisableForgetting bool
}

// WithDefaults returns a copy of c with zero fields replaced by defaults and
// negative sentinels resolved. A nil c gives the defaults.
func (c *Config) WithDefaults() *Config {
	out := Config{}
	if c != nil {
		out = *c
	}
	if out.Weights == nil {
		out.Weights = DefaultWeights()
	}
	out.HybridAlpha = cmp.Or(out.HybridAlpha, HybridAlphaDefault)
	if out.HybridAlpha < 0 {
		out.HybridAlpha = 0
	}
	out.BoostScale = cmp.Or(out.BoostScale, BoostScaleDefault)
	out.BoostExponent = cmp.Or(out.BoostExponent, BoostExponentDefault)
	out.ForgettingFloor = cmp.Or(out.ForgettingFloor, ForgettingFloorDefault)
	if out.ForgettingFloor < 0 {
		out.ForgettingFloor = 0
	}
	out.DedupThreshold = cmp.Or(out.DedupThreshold, DedupThresholdDefault)
	out.K = cmp.Or(out.K, KDefault)
	for _, f := range []struct {
		v   *float64
		def float64
	}{
		{&out.NeighbourWeight, NeighbourWeightDefault},
		{&out.SessionWeight, SessionWeightDefault},
		{&out.RegionWeight, RegionWeightDefault},
		{&out.SpeakerBoost, SpeakerBoostDefault},
		{&out.ParticipantBoost, ParticipantBoostDefault},
	} {
		*f.v = cmp.Or(*f.v, f.def)
		if *f.v < 0 {
			*f.v = 0
		}
	}
	return &out
}

func (c *Config) validate() error {
	finite := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %v, want finite", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"HybridAlpha", c.HybridAlpha},
		{"BoostScale", c.BoostScale},
		{"BoostExponent", c.BoostExponent},
		{"ForgettingFloor", c.ForgettingFloor},
		{"DedupThreshold", c.DedupThreshold},
		{"NeighbourWeight", c.NeighbourWeight},
		{"SessionWeight", c.SessionWeight},
		{"RegionWeight", c.RegionWeight},
		{"SpeakerBoost", c.SpeakerBoost},
		{"ParticipantBoost", c.ParticipantBoost},
	} {
		if err := finite(f.name, f.v); err != nil {
			return err
		}
	}
	if c.HybridAlpha > 1 {
		return fmt.Errorf("HybridAlpha is %v, want ≤ 1", c.HybridAlpha)
	}
	if c.ForgettingFloor > 1 {
		return fmt.Errorf("ForgettingFloor is %v, want ≤ 1", c.ForgettingFloor)
	}
	if c.K < -1 {
		return fmt.Errorf("the fusion depth K is %d, want ≥ 1 or −1", c.K)
	}
	return c.Weights.Validate()
}

// Candidate is one memory returned by one layer's candidate generation.
// Callers compute both raw signals for every candidate (a candidate found by
// BM25 still gets its cosine, and vice versa); a signal that is unknown is 0.
// The same memory may appear in several layers (for example working and
// semantic); [Rank] fuses its appearances by ID.
type Candidate struct {
	// ID identifies the memory.
	ID string
	// Layer is the layer that produced the candidate.
	Layer Layer
	// Text is the memory's content, used for deduplication.
	Text string
	// Cosine is the cosine similarity to the query embedding, clamped to
	// [−1, 1].
	Cosine float64
	// BM25 is the raw BM25 score (≥ 0).
	BM25 float64
	// EdgeWeight is w of the memory's strongest Two-Factor edge; 0 means no
	// edge and no boost.
	EdgeWeight float64
	// EdgeImportance is I = 1/σ² of that edge; 0 means no boost.
	EdgeImportance float64
	// Retrievability is R(now) in [0, 1]. Memories that never decay (core)
	// pass 1.
	Retrievability float64
	// Session identifies the memory's session (conversation); empty means
	// none, and the memory is its own context.
	Session string
	// Prev and Next are the IDs of the memories before and after it in its
	// session; empty means none. Only neighbours that are themselves
	// candidates contribute.
	Prev, Next string
	// SessionBM25 is the raw BM25 (≥ 0) of the memory's whole session as one
	// document; ignored without a Session.
	SessionBM25 float64
	// Regions are the IDs of the memories that carry this one within a wider
	// span of its conversation (the consolidated episode of its turns, a
	// schema formed from them). Only regions that are themselves candidates
	// contribute, the best of them.
	Regions []string
	// SpeakerNamed reports that the memory's speaker is named in the query
	// (see [NamedIn]).
	SpeakerNamed bool
	// ParticipantNamed reports that a speaker of the memory's session is
	// named in the query.
	ParticipantNamed bool
}

// Signals records how a [Result]'s score came about, for explanation.
type Signals struct {
	// Cosine and BM25 are the raw signals of the winning appearance.
	Cosine, BM25 float64
	// VectorNorm and BM25Norm are the per-query min-max normalized signals.
	VectorNorm, BM25Norm float64
	// Hybrid is α·VectorNorm + (1 − α)·BM25Norm.
	Hybrid float64
	// Neighbour is the better Hybrid of the memory's session neighbours among
	// the candidates (0 without).
	Neighbour float64
	// Region is the best Hybrid of the memory's regions among the candidates
	// (0 without).
	Region float64
	// Session is SessionBM25 divided by the best SessionBM25 among the
	// candidates, or Hybrid for a memory without a session.
	Session float64
	// Context is (Hybrid + λ_n·Neighbour + λ_r·Region + λ_s·Session)/(1 + λ_s);
	// it equals Hybrid for a memory without a session, neighbours or region.
	Context float64
	// Entity is the multiplier 1 + β_s·[speaker named] + β_p·[session
	// participant named].
	Entity float64
	// LayerWeight is w_layer(class) of the winning appearance.
	LayerWeight float64
	// Fused is max over appearances of LayerWeight·Context·Entity.
	Fused float64
	// Boost is the Two-Factor multiplier 1 + scale·w·I^exponent (1 when off).
	Boost float64
	// Retention is the forgetting multiplier f + (1 − f)·R (1 when off).
	Retention float64
}

// Result is one ranked memory.
type Result struct {
	// ID identifies the memory.
	ID string
	// Layer is the layer of the winning appearance.
	Layer Layer
	// Text is the memory's content.
	Text string
	// Score is Fused·Boost·Retention.
	Score float64
	// Signals explains Score.
	Signals Signals
}

// MinMax returns the min-max normalization (x − min)/(max − min) of xs. When
// all values are equal the result is 1 for a positive common value and 0
// otherwise, so a lone candidate with some similarity is not zeroed. Empty
// input returns an empty slice. Non-finite values are the caller's error;
// they propagate.
func MinMax(xs []float64) []float64 {
	out := make([]float64, len(xs))
	if len(xs) == 0 {
		return out
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	for i, x := range xs {
		switch {
		case hi > lo:
			out[i] = (x - lo) / (hi - lo)
		case x > 0:
			out[i] = 1
		}
	}
	return out
}

// BoostFactor returns the Two-Factor multiplier 1 + scale·w·I^exponent for
// edge weight w and importance I. A w or I that is not finite and positive
// returns 1 (no boost).
func BoostFactor(w, importance, scale, exponent float64) float64 {
	if !(w > 0) || !(importance > 0) || math.IsInf(w, 0) || math.IsInf(importance, 0) {
		return 1
	}
	f := 1 + scale*w*math.Pow(importance, exponent)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 1
	}
	return f
}

// ForgettingFactor returns the floored retention multiplier f + (1 − f)·R.
// R is clamped to [0, 1] and f to [0, 1]; a NaN R counts as 0 (the floor).
func ForgettingFactor(r, floor float64) float64 {
	if math.IsNaN(r) {
		r = 0
	}
	if math.IsNaN(floor) {
		floor = ForgettingFloorDefault
	}
	r = min(max(r, 0), 1)
	floor = min(max(floor, 0), 1)
	return floor + (1-floor)*r
}

// Dedup keeps results in descending score order (ties by ID) and drops each
// one whose [textproc.TokenJaccard] with an already-kept result exceeds
// threshold, so of two near-duplicates the higher-scored one stays. The input
// is not modified.
func Dedup(results []Result, threshold float64) []Result {
	return DedupTop(results, threshold, -1)
}

// DedupTop is [Dedup] stopped once k results are kept (k < 0: no limit). A kept
// result depends only on the higher-scored ones, so DedupTop(rs, t, k) equals
// the first k of Dedup(rs, t); recall asks for its top k and so tokenizes and
// compares only as far down the ranking as it needs.
func DedupTop(results []Result, threshold float64, k int) []Result {
	sorted := slices.Clone(results)
	sortResults(sorted)
	limit := len(sorted)
	if k >= 0 {
		limit = min(limit, k)
	}
	kept := make([]Result, 0, limit)
	toks := make([]textproc.Set, 0, limit)
	for _, r := range sorted {
		if len(kept) == limit {
			break
		}
		t := textproc.NewSet(textproc.Tokens(r.Text))
		dup := false
		for _, kt := range toks {
			if t.JaccardAbove(kt, threshold) {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, r)
			toks = append(toks, t)
		}
	}
	return kept
}

func sortResults(rs []Result) {
	slices.SortStableFunc(rs, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

func layerOrder(l Layer) int {
	return slices.Index(Layers(), l)
}

// Rank runs recall steps 2–6 of DESIGN.md §5 on the candidates of one query:
// per-query min-max normalization of the cosine and BM25 signals, the hybrid
// score, the conversational context
//
//	context(d) = (hybrid(d) + λ_n·max(hybrid(prev), hybrid(next)) + λ_r·hybrid(region) + λ_s·session(d)) / (1 + λ_s)
//	entity(d)  = 1 + β_s·[d's speaker named] + β_p·[a speaker of d's session named]
//
// (session(d) = SessionBM25/max SessionBM25 over the candidates, or hybrid(d)
// without a session, so a memory without a session keeps context = hybrid),
// magnitude fusion score(d) = max over d's appearances of
// w_layer(class)·context·entity, the Two-Factor boost ·(1 + 0.2·w·I^0.1), the
// forgetting multiplier ·(f + (1 − f)·R), token-Jaccard deduplication
// (> 0.9 keeps the higher) and the top K. Ties order by ID, and an ID's
// appearances tie-break by layer order, so the output is deterministic.
//
// Rank returns an error for an invalid config, an unknown class or layer, an
// empty ID, or a non-finite or out-of-range signal (BM25 < 0, Retrievability
// outside [0, 1]). No candidates give an empty result.
func Rank(class QueryClass, cands []Candidate, cfg *Config) ([]Result, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("error ranking candidates: invalid config: %w", err)
	}
	if !class.Valid() {
		return nil, fmt.Errorf("error ranking candidates: unknown query class %q", class)
	}
	cos := make([]float64, len(cands))
	bm := make([]float64, len(cands))
	for i, cd := range cands {
		if err := checkCandidate(cd); err != nil {
			return nil, fmt.Errorf("error ranking candidates: candidate %d (%q): %w", i, cd.ID, err)
		}
		cos[i] = min(max(cd.Cosine, -1), 1)
		bm[i] = cd.BM25
	}
	vn, bn := MinMax(cos), MinMax(bm)
	hybrid := make([]float64, len(cands))
	bestHybrid := make(map[string]float64, len(cands))
	sessMax := 0.0
	for i, cd := range cands {
		hybrid[i] = c.HybridAlpha*vn[i] + (1-c.HybridAlpha)*bn[i]
		if h, ok := bestHybrid[cd.ID]; !ok || hybrid[i] > h {
			bestHybrid[cd.ID] = hybrid[i]
		}
		if cd.Session != "" {
			sessMax = max(sessMax, cd.SessionBM25)
		}
	}
	ln, ls, lr, bs, bp := c.NeighbourWeight, c.SessionWeight, c.RegionWeight, c.SpeakerBoost, c.ParticipantBoost
	if c.DisableContext {
		ln, ls, lr, bs, bp = 0, 0, 0, 0, 0
	}

	best := make(map[string]int)
	results := make([]Result, 0, len(cands))
	for i, cd := range cands {
		w := 1.0
		if !c.DisableLayerWeights {
			w = c.Weights.Weight(class, cd.Layer)
		}
		sg := Signals{
			Cosine: cos[i], BM25: bm[i], VectorNorm: vn[i], BM25Norm: bn[i], Hybrid: hybrid[i],
			Session: hybrid[i], Entity: 1, LayerWeight: w, Boost: 1, Retention: 1,
		}
		if cd.Session != "" {
			for _, nb := range []string{cd.Prev, cd.Next} {
				if h, ok := bestHybrid[nb]; ok && nb != "" && nb != cd.ID {
					sg.Neighbour = max(sg.Neighbour, h)
				}
			}
			sg.Session = 0
			if sessMax > 0 {
				sg.Session = cd.SessionBM25 / sessMax
			}
		}
		for _, rg := range cd.Regions {
			if h, ok := bestHybrid[rg]; ok && rg != "" && rg != cd.ID {
				sg.Region = max(sg.Region, h)
			}
		}
		sg.Context = (sg.Hybrid + ln*sg.Neighbour + lr*sg.Region + ls*sg.Session) / (1 + ls)
		if cd.SpeakerNamed {
			sg.Entity += bs
		}
		if cd.ParticipantNamed {
			sg.Entity += bp
		}
		sg.Fused = w * sg.Context * sg.Entity
		r := Result{ID: cd.ID, Layer: cd.Layer, Text: cd.Text, Signals: sg}
		if !c.DisableTwoFactorBoost {
			r.Signals.Boost = BoostFactor(cd.EdgeWeight, cd.EdgeImportance, c.BoostScale, c.BoostExponent)
		}
		if !c.DisableForgetting {
			r.Signals.Retention = ForgettingFactor(cd.Retrievability, c.ForgettingFloor)
		}
		r.Score = r.Signals.Fused * r.Signals.Boost * r.Signals.Retention
		j, seen := best[cd.ID]
		if !seen {
			best[cd.ID] = len(results)
			results = append(results, r)
			continue
		}
		prev := results[j]
		if r.Signals.Fused > prev.Signals.Fused ||
			(r.Signals.Fused == prev.Signals.Fused && layerOrder(r.Layer) < layerOrder(prev.Layer)) {
			results[j] = r
		}
	}
	threshold := c.DedupThreshold
	if threshold >= 1 {
		sortResults(results)
	} else {
		results = DedupTop(results, threshold, c.K)
	}
	if c.K >= 0 && len(results) > c.K {
		results = results[:c.K]
	}
	return results, nil
}

func checkCandidate(cd Candidate) error {
	switch {
	case cd.ID == "":
		return fmt.Errorf("empty ID")
	case !cd.Layer.Valid():
		return fmt.Errorf("unknown layer %q", cd.Layer)
	case math.IsNaN(cd.Cosine) || math.IsInf(cd.Cosine, 0):
		return fmt.Errorf("cosine is %v", cd.Cosine)
	case math.IsNaN(cd.BM25) || math.IsInf(cd.BM25, 0) || cd.BM25 < 0:
		return fmt.Errorf("BM25 is %v, want finite and ≥ 0", cd.BM25)
	case math.IsNaN(cd.Retrievability) || cd.Retrievability < 0 || cd.Retrievability > 1:
		return fmt.Errorf("retrievability is %v, want in [0, 1]", cd.Retrievability)
	case math.IsNaN(cd.SessionBM25) || math.IsInf(cd.SessionBM25, 0) || cd.SessionBM25 < 0:
		return fmt.Errorf("session BM25 is %v, want finite and ≥ 0", cd.SessionBM25)
	case math.IsNaN(cd.EdgeWeight) || math.IsNaN(cd.EdgeImportance):
		return fmt.Errorf("edge weight or importance is NaN")
	}
	return nil
}

// NamedIn reports whether name is named in query: the first word of name
// (a given name such as "Caroline" of "Caroline Smith") appears among the
// [textproc.Tokens] of query. Names whose first word is
// shorter than 2 letters or a stop word never match. Matching is
// case-insensitive.
func NamedIn(query, name string) bool {
	nt := textproc.Tokens(name)
	if len(nt) == 0 || len([]rune(nt[0])) < 2 || textproc.IsStopWord(nt[0], textproc.English) || textproc.IsStopWord(nt[0], textproc.German) {
		return false
	}
	qt := textproc.Tokens(query)
	for _, t := range qt {
		if t == nt[0] {
			return true
		}
	}
	return false
}
