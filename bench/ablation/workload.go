package ablation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zenbrain/zb/algorithms/simstat"
)

// Workload is one synthetic condition of the ablation: how many facts, how many fact queries,
// how many simulated days, and the base decay per day of an unrehearsed neutral fact.
type Workload struct {
	// Name identifies the workload in reports ("moderate", "challenging", "stress", "cascade").
	Name string `json:"name"`
	// Facts is the number of facts, stored on day 0 (or FactsPerDay a day).
	Facts int `json:"facts"`
	// FactsPerDay, when positive, stores the facts in daily batches of this size (day 0, 1,
	// ...) instead of all on day 0.
	FactsPerDay int `json:"facts_per_day,omitempty"`
	// Queries is the number of fact queries; the workload adds one query per episode.
	Queries int `json:"queries"`
	// Days is the number of simulated days; the evaluation runs at the end of the last one.
	Days int `json:"days"`
	// BaseDecay is the reference harness's base decay per day, r in s ← s·e^(−r). It maps onto
	// the forgetting model as an initial semantic stability of 1/r days (see [StabilityFor]).
	BaseDecay float64 `json:"base_decay"`
	// QueriesPerDay is the recall traffic of one simulated day. 0 means QueriesPerDayDefault.
	QueriesPerDay int `json:"queries_per_day"`
	// EvalQueries caps the queries scored at the end (a fixed, seeded sample). 0 scores all.
	EvalQueries int `json:"eval_queries,omitempty"`
}

// Workload defaults.
const (
	// QueriesPerDayDefault is the default recall traffic per simulated day.
	QueriesPerDayDefault = 2
	// EmotionalShare is the share of facts with an emotional clause (the harness's arousal >
	// 0.6 share).
	EmotionalShare = 0.2
	// EpisodesPerFact is the number of episodes (dated events, stored on their day) per fact.
	EpisodesPerFact = 0.2
	// RevisionsPerFact is the share of facts whose value is revised during the run; a revision
	// is stored two minutes after a recall that returned the old fact (it arrives while the old
	// fact is labile).
	RevisionsPerFact = 0.1
)

// The four workloads of the reference harness (notes §7.3 and §7.4), with recall traffic.
var (
	// Moderate is 300 facts, 100 queries, 45 days, base decay 0.15/day.
	Moderate = Workload{Name: "moderate", Facts: 300, Queries: 100, Days: 45, BaseDecay: 0.15}
	// Challenging is 400 facts, 120 queries, 50 days, base decay 0.20/day.
	Challenging = Workload{Name: "challenging", Facts: 400, Queries: 120, Days: 50, BaseDecay: 0.20}
	// Stress is 500 facts, 150 queries, 60 days, base decay 0.25/day.
	Stress = Workload{Name: "stress", Facts: 500, Queries: 150, Days: 60, BaseDecay: 0.25}
	// Cascade is the integration cascade: 200 facts, 60 queries, 60 days, base decay 0.30/day.
	Cascade = Workload{Name: "cascade", Facts: 200, Queries: 60, Days: 60, BaseDecay: 0.30}
)

// Workloads returns the four workloads in report order.
func Workloads() []Workload { return []Workload{Moderate, Challenging, Stress, Cascade} }

// WorkloadByName returns the workload named name.
func WorkloadByName(name string) (Workload, bool) {
	for _, w := range Workloads() {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

func (w Workload) validate() error {
	switch {
	case w.Name == "":
		return fmt.Errorf("%w: workload without a name", ErrBadSpec)
	case w.Facts < 10 || w.Facts > len(worldNames)*len(worldAttrs):
		return fmt.Errorf("%w: workload %s: facts must be in 10..%d, got %d", ErrBadSpec, w.Name, len(worldNames)*len(worldAttrs), w.Facts)
	case w.Queries < 1 || w.Queries > 10*w.Facts:
		return fmt.Errorf("%w: workload %s: queries must be in 1..%d, got %d", ErrBadSpec, w.Name, 10*w.Facts, w.Queries)
	case w.Days < 1 || w.Days > 365:
		return fmt.Errorf("%w: workload %s: days must be in 1..365, got %d", ErrBadSpec, w.Name, w.Days)
	case !(w.BaseDecay > 0 && w.BaseDecay <= 5):
		return fmt.Errorf("%w: workload %s: base decay must be in (0, 5], got %v", ErrBadSpec, w.Name, w.BaseDecay)
	case w.FactsPerDay < 0 || (w.FactsPerDay > 0 && (w.Facts+w.FactsPerDay-1)/w.FactsPerDay > w.Days):
		return fmt.Errorf("%w: workload %s: %d facts at %d a day do not fit in %d days", ErrBadSpec, w.Name, w.Facts, w.FactsPerDay, w.Days)
	case w.QueriesPerDay < 0 || w.QueriesPerDay > 1000 || w.EvalQueries < 0:
		return fmt.Errorf("%w: workload %s: queries per day must be in 0..1000 and eval queries ≥ 0", ErrBadSpec, w.Name)
	}
	return nil
}

// Fact is one subject/attribute/value fact of the world, stored on day 0 as a semantic memory.
type Fact struct {
	// Key is the fact's unit key and the memory's external id ("f17").
	Key string `json:"key"`
	// Person and Attr are its subject and attribute; Value the unique value phrase.
	Person string `json:"person"`
	Attr   string `json:"attr"`
	Value  string `json:"value"`
	// Text is the stored content.
	Text string `json:"text"`
	// Emotional reports an emotional clause (arousal cue) in Text.
	Emotional bool `json:"emotional"`
	// Day is the simulated day it is stored.
	Day int `json:"day"`
	// Revision is the later value of the fact, if it is revised.
	Revision *Revision `json:"revision,omitempty"`
}

// Revision is a new value of a fact stored on Day (after a recall of the old one).
type Revision struct {
	// Key is the revision's unit key and external id ("f17r").
	Key string `json:"key"`
	// Day is the simulated day of the revision.
	Day int `json:"day"`
	// Value is the new value phrase; Text the stored content.
	Value string `json:"value"`
	Text  string `json:"text"`
	// Query is the index of the query recalled just before the revision is stored.
	Query int `json:"query"`
}

// Episode is a dated event stored on its day as an episodic memory.
type Episode struct {
	// Key is its unit key and external id ("e5").
	Key string `json:"key"`
	// Day is the simulated day it happens and is stored.
	Day int `json:"day"`
	// Value is its unique topic phrase; Text the stored content.
	Value string `json:"value"`
	Text  string `json:"text"`
}

// Query is one question of the world with the units that answer it.
type Query struct {
	// Text is the question.
	Text string `json:"text"`
	// Targets are the fact or episode keys whose current versions answer it.
	Targets []string `json:"targets"`
	// FromDay is the first day it can be asked (an episode's day).
	FromDay int `json:"from_day"`
}

// World is the generated content of one (workload, seed): facts, episodes, revisions and
// queries, identical for every configuration of the seed.
type World struct {
	Workload Workload  `json:"workload"`
	Seed     uint32    `json:"seed"`
	Facts    []Fact    `json:"facts"`
	Episodes []Episode `json:"episodes"`
	Queries  []Query   `json:"queries"`
	// Traffic lists, per day, the indices of the queries recalled that day.
	Traffic [][]int `json:"traffic"`
	// Eval lists the indices of the queries scored at the end.
	Eval []int `json:"eval"`
}

var (
	worldNames = strings.Fields(`Alice Bruno Clara Dmitri Elena Farid Greta Hugo Irene Jonas Katya Luca Marta Nils
		Olga Pavel Quinn Rosa Stefan Tomas Ulla Viktor Wanda Xaver Yusuf Zora Anton Bettina Cyril Dora Emil Fiona
		Gustav Hanna Ivo Jana Kasimir Lena Milo Nora`)
	worldPlaces = strings.Fields(`Lisbon Oslo Vienna Prague Dublin Athens Porto Bergen Tallinn Krakow Ghent Bruges
		Lyon Turin Seville Riga Gdansk Zagreb Basel Malmo`)
	worldAttrs = []string{
		"instrument", "car", "pet", "hobby", "bicycle", "lamp", "teapot", "notebook", "garden plant",
		"coat", "clock", "rug", "kite", "camera", "chess set",
	}
	worldAdjs = strings.Fields(`copper amber velvet walnut marble silver cobalt ivory indigo saffron crimson olive
		granite linen cedar maple bronze pewter coral jade teal umber slate ochre hazel plum birch onyx russet pearl`)
	worldNouns = strings.Fields(`violin falcon lantern compass kettle harbor ladder canyon glacier orchid quiver
		ribbon saddle timber whistle anchor bamboo cactus dolphin ember ginger igloo koala lotus magnet nectar parrot
		raven zephyr meadow pillow quartz tulip vessel walrus yacht acorn beacon cobble dune`)
	worldEmotions = []string{
		"She was thrilled about it!", "Losing it once terrified everyone.",
		"It made the whole family ecstatic!", "He was devastated when it broke!", "Everyone was furious when it vanished!",
	}
	worldVenues     = strings.Fields(`market harbor library station museum bakery workshop garden`)
	worldActivities = []string{"talk about", "plan", "sketch", "repair", "photograph", "discuss"}
)

// NewWorld generates the world of w and seed with Mulberry32 (the harness's generator and
// seeds; the draw order is fixed, so a seed always gives the same world).
func NewWorld(w Workload, seed uint32) (*World, error) {
	if err := w.validate(); err != nil {
		return nil, err
	}
	if w.QueriesPerDay == 0 {
		w.QueriesPerDay = QueriesPerDayDefault
	}
	r := simstat.NewMulberry32(seed)
	world := &World{Workload: w, Seed: seed}
	used := map[string]bool{}
	value := func() string {
		for {
			v := worldAdjs[r.Intn(len(worldAdjs))] + " " + worldNouns[r.Intn(len(worldNouns))]
			if !used[v] {
				used[v] = true
				return v
			}
		}
	}
	// Facts: distinct (person, attribute) pairs in a seeded order.
	pairs := make([][2]int, 0, len(worldNames)*len(worldAttrs))
	for p := range worldNames {
		for a := range worldAttrs {
			pairs = append(pairs, [2]int{p, a})
		}
	}
	shuffle(r, len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	factText := func(person, attr, val string, emotional bool) string {
		other := worldNames[r.Intn(len(worldNames))]
		if other == person {
			other = worldNames[(slices.Index(worldNames, person)+1)%len(worldNames)]
		}
		place := worldPlaces[r.Intn(len(worldPlaces))]
		s := fmt.Sprintf("%s's %s is the %s, found with %s in %s.", person, attr, val, other, place)
		if emotional {
			s += " " + worldEmotions[r.Intn(len(worldEmotions))]
		}
		return s
	}
	for i := 0; i < w.Facts; i++ {
		p, a := worldNames[pairs[i][0]], worldAttrs[pairs[i][1]]
		emo := r.Float64() < EmotionalShare
		v := value()
		day := 0
		if w.FactsPerDay > 0 {
			day = i / w.FactsPerDay
		}
		world.Facts = append(world.Facts, Fact{
			Key: fmt.Sprintf("f%d", i), Person: p, Attr: a, Value: v,
			Text: factText(p, a, v, emo), Emotional: emo, Day: day,
		})
	}
	// Fact queries: a person and one to three of their attributes (nRel = 1 + ⌊3u⌋, as in the
	// harness), asked from day 0.
	byPerson := map[string][]int{}
	for i, f := range world.Facts {
		byPerson[f.Person] = append(byPerson[f.Person], i)
	}
	for qi := 0; qi < w.Queries; qi++ {
		fi := r.Intn(len(world.Facts))
		f := world.Facts[fi]
		cand := slices.Clone(byPerson[f.Person])
		nRel := min(1+r.Intn(3), len(cand))
		shuffle(r, len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
		// The drawn fact always answers; the others are its person's further facts.
		idx := []int{fi}
		for _, c := range cand {
			if len(idx) == nRel {
				break
			}
			if !slices.Contains(idx, c) {
				idx = append(idx, c)
			}
		}
		slices.Sort(idx)
		attrs := make([]string, len(idx))
		keys := make([]string, len(idx))
		from := 0
		for i, x := range idx {
			attrs[i], keys[i] = world.Facts[x].Attr, world.Facts[x].Key
			from = max(from, world.Facts[x].Day)
		}
		world.Queries = append(world.Queries, Query{
			Text: fmt.Sprintf("What is %s's %s?", f.Person, joinAnd(attrs)), Targets: keys,
			FromDay: from,
		})
	}
	// Revisions: a share of the facts that some query asks about gets a new value on a day in
	// the middle of the run, stored right after that query is recalled.
	nRev := int(float64(w.Facts) * RevisionsPerFact)
	order := perm(r, len(world.Queries))
	for _, qi := range order {
		if nRev == 0 || w.Days < 3 {
			break
		}
		q := world.Queries[qi]
		fi := factIndex(q.Targets[0])
		f := &world.Facts[fi]
		if f.Revision != nil || f.Day+2 >= w.Days || q.FromDay > f.Day {
			continue
		}
		v := value()
		day := f.Day + 1 + r.Intn(max(1, w.Days-2-f.Day))
		f.Revision = &Revision{Key: f.Key + "r", Day: day, Value: v, Text: factText(f.Person, f.Attr, v, f.Emotional), Query: qi}
		nRev--
	}
	// Episodes: dated events spread over the run, each with its own question.
	nEp := int(float64(w.Facts) * EpisodesPerFact)
	for i := 0; i < nEp; i++ {
		a := worldNames[r.Intn(len(worldNames))]
		b := worldNames[r.Intn(len(worldNames))]
		if b == a {
			b = worldNames[(slices.Index(worldNames, a)+1)%len(worldNames)]
		}
		place, venue := worldPlaces[r.Intn(len(worldPlaces))], worldVenues[r.Intn(len(worldVenues))]
		act := worldActivities[r.Intn(len(worldActivities))]
		v := value()
		day := r.Intn(max(1, w.Days-1))
		key := fmt.Sprintf("e%d", i)
		world.Episodes = append(world.Episodes, Episode{
			Key: key, Day: day, Value: v,
			Text: fmt.Sprintf("Today %s met %s at the %s %s to %s the %s.", a, b, place, venue, act, v),
		})
		world.Queries = append(world.Queries, Query{
			Text:    fmt.Sprintf("When did %s meet %s at the %s %s?", a, b, place, venue),
			Targets: []string{key}, FromDay: day,
		})
	}
	// Traffic: per day, QueriesPerDay queries drawn from those askable that day.
	world.Traffic = make([][]int, w.Days)
	for d := 0; d < w.Days; d++ {
		var avail []int
		for i, q := range world.Queries {
			if q.FromDay <= d {
				avail = append(avail, i)
			}
		}
		for k := 0; k < w.QueriesPerDay && len(avail) > 0; k++ {
			world.Traffic[d] = append(world.Traffic[d], avail[r.Intn(len(avail))])
		}
	}
	// Evaluation sample.
	world.Eval = perm(r, len(world.Queries))
	if w.EvalQueries > 0 && w.EvalQueries < len(world.Eval) {
		world.Eval = world.Eval[:w.EvalQueries]
	}
	slices.Sort(world.Eval)
	world.Workload = w
	return world, nil
}

// Units returns the keys of the units whose retention is measured at the end of day: every
// stored fact's version current then (the revision after its day) and every episode stored by
// then.
func (w *World) Units(day int) []string {
	out := make([]string, 0, len(w.Facts)+len(w.Episodes))
	for _, f := range w.Facts {
		if f.Day <= day {
			out = append(out, w.Current(f.Key, day))
		}
	}
	for _, e := range w.Episodes {
		if e.Day <= day {
			out = append(out, e.Key)
		}
	}
	return out
}

// Current returns the key of the version of unit key current at the end of day.
func (w *World) Current(key string, day int) string {
	if !strings.HasPrefix(key, "f") {
		return key
	}
	f := w.Facts[factIndex(key)]
	if f.Revision != nil && f.Revision.Day <= day {
		return f.Revision.Key
	}
	return key
}

// Value returns the value phrase of a unit key (fact, revision or episode), or "".
func (w *World) Value(key string) string {
	switch {
	case strings.HasPrefix(key, "e"):
		var i int
		if _, err := fmt.Sscanf(key, "e%d", &i); err == nil && i >= 0 && i < len(w.Episodes) {
			return w.Episodes[i].Value
		}
	case strings.HasSuffix(key, "r"):
		if f := w.Facts[factIndex(strings.TrimSuffix(key, "r"))]; f.Revision != nil {
			return f.Revision.Value
		}
	case strings.HasPrefix(key, "f"):
		return w.Facts[factIndex(key)].Value
	}
	return ""
}

// Emotional reports whether unit key belongs to an emotional fact.
func (w *World) Emotional(key string) bool {
	if !strings.HasPrefix(key, "f") {
		return false
	}
	return w.Facts[factIndex(strings.TrimSuffix(key, "r"))].Emotional
}

func factIndex(key string) int {
	var i int
	if _, err := fmt.Sscanf(key, "f%d", &i); err != nil {
		return -1
	}
	return i
}

// shuffle is a Fisher–Yates shuffle driven by Mulberry32.
func shuffle(r *simstat.Mulberry32, n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Intn(i+1))
	}
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// perm returns a seeded permutation of 0..n-1.
func perm(r *simstat.Mulberry32, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	shuffle(r, n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}
