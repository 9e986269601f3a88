package coordinator

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/zenbrain/zb/algorithms/retrieval"
	"github.com/zenbrain/zb/algorithms/textproc"
)

// Layer is one of the seven memory layers (DESIGN.md §4); the values are the database's.
type Layer = retrieval.Layer

// The seven layers.
const (
	LayerWorking      = retrieval.LayerWorking
	LayerShortTerm    = retrieval.LayerShortTerm
	LayerEpisodic     = retrieval.LayerEpisodic
	LayerSemantic     = retrieval.LayerSemantic
	LayerProcedural   = retrieval.LayerProcedural
	LayerCore         = retrieval.LayerCore
	LayerCrossContext = retrieval.LayerCrossContext
)

// kinds allowed by zb.memory.kind.
var validKinds = map[string]bool{
	"fact": true, "episode": true, "interaction": true, "skill": true, "identity": true, "schema": true,
	"hypothesis": true, "focus": true, "entity_link": true, "counterfactual": true,
}

// DefaultKind returns the kind a memory of layer l gets when none is given: working focus,
// short-term interaction, episodic episode, semantic fact, procedural skill, core identity,
// cross-context entity_link.
func DefaultKind(l Layer) string {
	switch l {
	case LayerWorking:
		return "focus"
	case LayerShortTerm:
		return "interaction"
	case LayerEpisodic:
		return "episode"
	case LayerProcedural:
		return "skill"
	case LayerCore:
		return "identity"
	case LayerCrossContext:
		return "entity_link"
	default:
		return "fact"
	}
}

// RouteSignal is what a Route tests.
type RouteSignal string

// Route signals.
const (
	// SignalPattern matches Route.Pattern against the normalized content.
	SignalPattern RouteSignal = "pattern"
	// SignalEmotion fires when max(|valence|, arousal, significance) of the content's emotional
	// tag reaches Config.StrongEmotion.
	SignalEmotion RouteSignal = "emotion"
	// SignalDate fires when the content has a resolvable date expression ("yesterday", "letzte
	// Woche", "15.03.2023") or the memory has an explicit occurred_at.
	SignalDate RouteSignal = "date"
)

// Route is one row of Store's content routing table: the first route whose signal fires
// decides the layer and kind of a memory stored without an explicit layer.
type Route struct {
	// Name identifies the route in StoreResult.Route.
	Name string
	// Lang is the language of Pattern (documentation only; every route runs on every text).
	Lang textproc.Lang
	// Signal is what the route tests. Empty means SignalPattern.
	Signal RouteSignal
	// Pattern is an RE2 body matched against the content after textproc.Normalize (lower case,
	// NFKC), at word boundaries on both sides. Only for SignalPattern.
	Pattern string
	// Layer is the layer the route sends content to.
	Layer Layer
	// Kind is the kind; empty means DefaultKind(Layer).
	Kind string
}

func (r Route) validate() error {
	if r.Name == "" {
		return errors.New("route without a name")
	}
	if !r.Layer.Valid() || r.Layer == LayerCore || r.Layer == LayerWorking {
		return fmt.Errorf("route %s: layer %q cannot be routed to (core and working need an explicit label or session)", r.Name, r.Layer)
	}
	if r.Kind != "" && !validKinds[r.Kind] {
		return fmt.Errorf("route %s: unknown kind %q", r.Name, r.Kind)
	}
	switch r.Signal {
	case "", SignalPattern:
		if r.Pattern == "" {
			return fmt.Errorf("route %s: empty pattern", r.Name)
		}
	case SignalEmotion, SignalDate:
	default:
		return fmt.Errorf("route %s: unknown signal %q", r.Name, r.Signal)
	}
	return nil
}

// DefaultRoutes returns the routing table in English and German, in order: procedural cues,
// identity cues, strong emotion and temporal anchors (episodic). Content that no route takes
// is a semantic fact; content stored in a session without an explicit layer is a short-term
// interaction before any route applies, and is routed again at consolidation.
func DefaultRoutes() []Route {
	return []Route{
		{
			Name: "procedural_how_to_en", Lang: textproc.English, Layer: LayerProcedural,
			Pattern: `(?:how to|how do (?:i|you|we)|in order to|step (?:1|one)|first,? .*then|instructions? for|recipe for|to do this,)`,
		},
		{
			Name: "procedural_steps_en", Lang: textproc.English, Layer: LayerProcedural,
			Pattern: `(?:step \d+|steps?:|run ` + "`" + `|then run|next,? (?:run|click|open|type))`,
		},
		{
			Name: "procedural_how_to_de", Lang: textproc.German, Layer: LayerProcedural,
			Pattern: `(?:wie man|so geht|anleitung|schritt (?:\d+|eins)|zuerst .*dann|um .* zu .*muss)`,
		},
		{
			Name: "identity_en", Lang: textproc.English, Layer: LayerSemantic, Kind: "identity",
			Pattern: `(?:my name is|i am an? |i'm an? |call me|i was born|i identify as)`,
		},
		{
			Name: "identity_de", Lang: textproc.German, Layer: LayerSemantic, Kind: "identity",
			Pattern: `(?:ich heiße|mein name ist|ich bin ein(?:e|)? |ich wurde .*geboren|nenn mich)`,
		},
		{Name: "strong_emotion", Signal: SignalEmotion, Layer: LayerEpisodic},
		{Name: "temporal_anchor", Signal: SignalDate, Layer: LayerEpisodic},
	}
}

type compiledRoute struct {
	Route
	re *regexp.Regexp
}

type router struct{ routes []compiledRoute }

func newRouter(rs []Route) (*router, error) {
	out := &router{}
	for _, r := range rs {
		cr := compiledRoute{Route: r}
		if r.Signal == "" || r.Signal == SignalPattern {
			re, err := regexp.Compile(`(?:^|[^\p{L}\p{N}])(?:` + r.Pattern + `)`)
			if err != nil {
				return nil, fmt.Errorf("route %s: %w", r.Name, err)
			}
			cr.re = re
		}
		out.routes = append(out.routes, cr)
	}
	return out, nil
}

// routeSignals are the computed signals a route may test.
type routeSignals struct {
	emotion float64 // max(|valence|, arousal, significance)
	hasDate bool
}

// route returns the first route that fires, or false.
func (r *router) route(normalized string, s routeSignals, strong float64) (Route, bool) {
	for _, cr := range r.routes {
		switch cr.Signal {
		case SignalEmotion:
			if s.emotion >= strong {
				return cr.Route, true
			}
		case SignalDate:
			if s.hasDate {
				return cr.Route, true
			}
		default:
			if cr.re.MatchString(normalized) {
				return cr.Route, true
			}
		}
	}
	return Route{}, false
}

// FactPattern is one row of the subject/attribute extraction table used for semantic
// supersession: a newer fact with the same subject and attribute ends the validity of the
// older one. The pattern is an RE2 body matched against the whole normalized sentence (lower
// case, trailing punctuation removed) with named groups subject, attribute (optional when
// Attribute is set) and value. Subject "user" stands for the speaker ("my", "I", "ich").
type FactPattern struct {
	// Name identifies the pattern.
	Name string
	// Lang is the language of Pattern (documentation only).
	Lang textproc.Lang
	// Pattern is the RE2 body with named groups.
	Pattern string
	// Subject is the subject when the pattern has no subject group (e.g. "user").
	Subject string
	// Attribute is the attribute when the pattern has no attribute group (e.g. "residence").
	Attribute string
}

func (p FactPattern) validate() error {
	if p.Name == "" || p.Pattern == "" {
		return errors.New("fact pattern without name or pattern")
	}
	return nil
}

// DefaultFactPatterns returns the English and German fact patterns: "X's Y is Z", "my Y is
// Z", "X lives in Z", "X works at Z", "Xs Y ist Z", "mein Y ist Z", "X wohnt in Z", "X
// arbeitet bei Z" and their first-person forms.
func DefaultFactPatterns() []FactPattern {
	const subj = `(?P<subject>[\p{L}][\p{L}\p{N}.-]*(?: [\p{L}][\p{L}\p{N}.-]*)?)`
	const attr = `(?P<attribute>[\p{L}][\p{L}\p{N}-]*(?: [\p{L}][\p{L}\p{N}-]*){0,2})`
	return []FactPattern{
		{Name: "my_attr_is_en", Lang: textproc.English, Subject: "user", Pattern: `my ` + attr + ` (?:is|are|was) (?P<value>.+)`},
		{Name: "lives_in_first_en", Lang: textproc.English, Subject: "user", Attribute: "residence", Pattern: `i (?:now )?(?:live|moved) (?:in|to) (?P<value>.+)`},
		{Name: "works_first_en", Lang: textproc.English, Subject: "user", Attribute: "employer", Pattern: `i (?:now )?work (?:at|for) (?P<value>.+)`},
		{Name: "possessive_en", Lang: textproc.English, Pattern: subj + `'s ` + attr + ` (?:is|are|was) (?P<value>.+)`},
		{Name: "lives_in_en", Lang: textproc.English, Attribute: "residence", Pattern: subj + ` (?:now )?(?:lives|moved) (?:in|to) (?P<value>.+)`},
		{Name: "works_en", Lang: textproc.English, Attribute: "employer", Pattern: subj + ` (?:now )?works (?:at|for) (?P<value>.+)`},
		{Name: "mein_attr_ist_de", Lang: textproc.German, Subject: "user", Pattern: `mein(?:e)? ` + attr + ` (?:ist|sind|war) (?P<value>.+)`},
		{Name: "wohne_de", Lang: textproc.German, Subject: "user", Attribute: "residence", Pattern: `ich (?:wohne|lebe) (?:jetzt )?in (?P<value>.+)`},
		{Name: "arbeite_de", Lang: textproc.German, Subject: "user", Attribute: "employer", Pattern: `ich arbeite (?:jetzt )?(?:bei|für) (?P<value>.+)`},
		{Name: "possessive_de", Lang: textproc.German, Pattern: `(?P<subject>[\p{L}][\p{L}\p{N}.-]*?)s ` + attr + ` (?:ist|sind|war) (?P<value>.+)`},
		{Name: "attr_von_de", Lang: textproc.German, Pattern: `(?:die|der|das) ` + attr + ` von ` + subj + ` (?:ist|sind|war) (?P<value>.+)`},
		{Name: "wohnt_de", Lang: textproc.German, Attribute: "residence", Pattern: subj + ` (?:wohnt|lebt) (?:jetzt )?in (?P<value>.+)`},
		{Name: "arbeitet_de", Lang: textproc.German, Attribute: "employer", Pattern: subj + ` arbeitet (?:jetzt )?(?:bei|für) (?P<value>.+)`},
	}
}

// Fact is a subject/attribute/value triple extracted from a sentence.
type Fact struct {
	// Subject is the normalized subject ("user" for the speaker).
	Subject string
	// Attribute is the normalized attribute.
	Attribute string
	// Value is the value as written (normalized).
	Value string
	// Pattern names the FactPattern that matched.
	Pattern string
}

type compiledFact struct {
	FactPattern
	re *regexp.Regexp
}

type factExtractor struct{ pats []compiledFact }

func newFactExtractor(ps []FactPattern) (*factExtractor, error) {
	out := &factExtractor{}
	for _, p := range ps {
		re, err := regexp.Compile(`^(?:` + p.Pattern + `)$`)
		if err != nil {
			return nil, fmt.Errorf("fact pattern %s: %w", p.Name, err)
		}
		names := map[string]bool{}
		for _, n := range re.SubexpNames() {
			names[n] = true
		}
		if !names["value"] || (!names["subject"] && p.Subject == "") || (!names["attribute"] && p.Attribute == "") {
			return nil, fmt.Errorf("fact pattern %s needs groups value, subject (or Subject) and attribute (or Attribute)", p.Name)
		}
		out.pats = append(out.pats, compiledFact{FactPattern: p, re: re})
	}
	return out, nil
}

// extract returns the fact stated by a one-sentence text, or false.
func (f *factExtractor) extract(text string) (Fact, bool) {
	s := strings.TrimSpace(textproc.Normalize(text))
	s = strings.TrimRight(s, ".!? ")
	if s == "" || strings.ContainsAny(s, ".!?\n") {
		return Fact{}, false // one sentence only
	}
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range f.pats {
		m := p.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		out := Fact{Subject: p.Subject, Attribute: p.Attribute, Pattern: p.Name}
		for i, n := range p.re.SubexpNames() {
			switch n {
			case "subject":
				out.Subject = strings.TrimPrefix(m[i], "the ")
			case "attribute":
				out.Attribute = m[i]
			case "value":
				out.Value = m[i]
			}
		}
		if out.Subject != "" && out.Attribute != "" && out.Value != "" {
			return out, true
		}
	}
	return Fact{}, false
}

// ExtractFact returns the subject/attribute/value fact of a one-sentence text by the default
// fact patterns, or false.
func ExtractFact(text string) (Fact, bool) {
	fx, err := newFactExtractor(DefaultFactPatterns())
	if err != nil {
		return Fact{}, false
	}
	return fx.extract(text)
}
