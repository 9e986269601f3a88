package compose

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Defaults for [Config].
const (
	// MaxHomeDefault is the most items in the target context's section.
	MaxHomeDefault = 8
	// MaxPerContextDefault is the most items any other context contributes.
	MaxPerContextDefault = 2
	// CrossDiscountDefault multiplies the score of items from other contexts.
	CrossDiscountDefault = 0.5
)

// Memory is one candidate memory.
type Memory struct {
	// ID identifies the memory; IDs must be unique within a request.
	ID string
	// Context is the memory's context (domain), for example "work".
	Context string
	// Text is the memory's content.
	Text string
	// Score is the memory's relevance to the query (for example its recall
	// score). It must be finite.
	Score float64
	// Entities are the entities the memory mentions, as identifiers within
	// its own context.
	Entities []string
}

// EntityRef names an entity within a context.
type EntityRef struct {
	// Context is the entity's context.
	Context string
	// Entity is the entity's identifier within Context.
	Entity string
}

// String formats the reference as "context:entity".
func (e EntityRef) String() string { return e.Context + ":" + e.Entity }

// Link states that two entity references denote the same real-world entity.
type Link struct {
	// A and B are the linked references.
	A, B EntityRef
}

// Grant lets Reader read memories of Source.
type Grant struct {
	// Reader is the reading context.
	Reader string
	// Source is the context that may be read.
	Source string
}

// Policy says which context may read which. Every context may read itself;
// everything else must be granted. The zero Policy grants nothing beyond
// that. Grants are directed: a grant from work to personal does not let
// personal read work.
type Policy struct {
	grants map[Grant]bool
}

// NewPolicy returns a Policy with the given grants.
func NewPolicy(grants ...Grant) Policy {
	p := Policy{grants: make(map[Grant]bool, len(grants))}
	for _, g := range grants {
		p.grants[g] = true
	}
	return p
}

// Allows reports whether reader may read source.
func (p Policy) Allows(reader, source string) bool {
	return reader == source || p.grants[Grant{Reader: reader, Source: source}]
}

// Config configures [Compose]. The zero value, or nil, means defaults.
type Config struct {
	// MaxHome is the most items in the home section. Defaults to
	// MaxHomeDefault; −1 means no limit.
	MaxHome int
	// MaxPerContext is the most items per other context. Defaults to
	// MaxPerContextDefault; −1 means no limit.
	MaxPerContext int
	// CrossDiscount multiplies the scores of items from other contexts, in
	// (0, 1]. Defaults to CrossDiscountDefault.
	CrossDiscount float64
}

// WithDefaults returns a copy of c with zero fields replaced by defaults.
func (c *Config) WithDefaults() *Config {
	out := Config{}
	if c != nil {
		out = *c
	}
	out.MaxHome = cmp.Or(out.MaxHome, MaxHomeDefault)
	out.MaxPerContext = cmp.Or(out.MaxPerContext, MaxPerContextDefault)
	out.CrossDiscount = cmp.Or(out.CrossDiscount, CrossDiscountDefault)
	return &out
}

// Request is the input of [Compose].
type Request struct {
	// Target is the reading context.
	Target string
	// QueryEntities are entities of the query, in Target's namespace.
	QueryEntities []string
	// Memories are the candidates from all contexts.
	Memories []Memory
	// Links are the known cross-context entity links.
	Links []Link
	// Policy decides which contexts Target may read.
	Policy Policy
}

// SectionKind distinguishes the target's own section from the others.
type SectionKind string

const (
	// SectionHome holds memories of the target context.
	SectionHome SectionKind = "home"
	// SectionCross holds memories of another context reached through links.
	SectionCross SectionKind = "cross"
)

// Item is a memory placed in a section.
type Item struct {
	// Memory is the placed memory.
	Memory Memory
	// Score is the memory's score, discounted for cross items.
	Score float64
	// Via lists, for cross items, the anchors (in the target's namespace)
	// the memory is linked to, sorted.
	Via []string
}

// Section is one block of the composed context.
type Section struct {
	// Kind is SectionHome or SectionCross.
	Kind SectionKind
	// Context is the context the items come from.
	Context string
	// Items are sorted by score, then ID.
	Items []Item
}

// Composition is the result of [Compose].
type Composition struct {
	// Sections are the home section (if it has items) and then the cross
	// sections by their best score, then context name.
	Sections []Section
	// Denied counts candidates dropped because the policy forbids their
	// context. Their content is not reported.
	Denied int
	// Unlinked counts candidates from readable contexts that were not linked
	// to any anchor.
	Unlinked int
}

// Compose builds the sections for req (see the package documentation). It
// returns an error for an empty target, a memory with an empty ID or
// context, a duplicate ID, or a non-finite score, and for a CrossDiscount
// outside (0, 1].
func Compose(req Request, cfg *Config) (Composition, error) {
	c := cfg.WithDefaults()
	if req.Target == "" {
		return Composition{}, fmt.Errorf("error composing context: empty target context")
	}
	if !(c.CrossDiscount > 0 && c.CrossDiscount <= 1) {
		return Composition{}, fmt.Errorf("error composing context: CrossDiscount %v, want in (0, 1]", c.CrossDiscount)
	}
	seen := make(map[string]bool, len(req.Memories))
	for _, m := range req.Memories {
		switch {
		case m.ID == "" || m.Context == "":
			return Composition{}, fmt.Errorf("error composing context: memory %q has empty ID or context", m.ID)
		case seen[m.ID]:
			return Composition{}, fmt.Errorf("error composing context: duplicate memory %q", m.ID)
		case math.IsNaN(m.Score) || math.IsInf(m.Score, 0):
			return Composition{}, fmt.Errorf("error composing context: memory %q has score %v", m.ID, m.Score)
		}
		seen[m.ID] = true
	}
	readable := func(ctx string) bool { return req.Policy.Allows(req.Target, ctx) }

	var out Composition
	var home []Memory
	byContext := map[string][]Memory{}
	for _, m := range req.Memories {
		switch {
		case !readable(m.Context):
			out.Denied++
		case m.Context == req.Target:
			home = append(home, m)
		default:
			byContext[m.Context] = append(byContext[m.Context], m)
		}
	}
	sortMemories(home)
	if c.MaxHome >= 0 && len(home) > c.MaxHome {
		home = home[:c.MaxHome]
	}

	// Entity components over readable contexts only.
	uf := newUnionFind()
	for _, l := range req.Links {
		if readable(l.A.Context) && readable(l.B.Context) && l.A.Entity != "" && l.B.Entity != "" {
			uf.union(l.A, l.B)
		}
	}
	// The anchors' names per component root (several anchors can share a
	// component).
	anchorNames := map[EntityRef][]string{}
	addName := func(e string) {
		if e == "" {
			return
		}
		r := uf.find(EntityRef{Context: req.Target, Entity: e})
		if !slices.Contains(anchorNames[r], e) {
			anchorNames[r] = append(anchorNames[r], e)
		}
	}
	for _, e := range req.QueryEntities {
		addName(e)
	}
	for _, m := range home {
		for _, e := range m.Entities {
			addName(e)
		}
	}

	if len(home) > 0 {
		items := make([]Item, len(home))
		for i, m := range home {
			items[i] = Item{Memory: m, Score: m.Score}
		}
		out.Sections = append(out.Sections, Section{Kind: SectionHome, Context: req.Target, Items: items})
	}

	contexts := make([]string, 0, len(byContext))
	for ctx := range byContext {
		contexts = append(contexts, ctx)
	}
	slices.Sort(contexts)
	var cross []Section
	for _, ctx := range contexts {
		mems := byContext[ctx]
		sortMemories(mems)
		var items []Item
		for _, m := range mems {
			var via []string
			for _, e := range m.Entities {
				if e == "" {
					continue
				}
				for _, name := range anchorNames[uf.find(EntityRef{Context: ctx, Entity: e})] {
					if !slices.Contains(via, name) {
						via = append(via, name)
					}
				}
			}
			if len(via) == 0 {
				out.Unlinked++
				continue
			}
			slices.Sort(via)
			items = append(items, Item{Memory: m, Score: m.Score * c.CrossDiscount, Via: via})
		}
		if c.MaxPerContext >= 0 && len(items) > c.MaxPerContext {
			items = items[:c.MaxPerContext]
		}
		if len(items) > 0 {
			cross = append(cross, Section{Kind: SectionCross, Context: ctx, Items: items})
		}
	}
	slices.SortStableFunc(cross, func(a, b Section) int {
		if d := cmp.Compare(b.Items[0].Score, a.Items[0].Score); d != 0 {
			return d
		}
		return cmp.Compare(a.Context, b.Context)
	})
	out.Sections = append(out.Sections, cross...)
	return out, nil
}

func sortMemories(ms []Memory) {
	slices.SortStableFunc(ms, func(a, b Memory) int {
		if d := cmp.Compare(b.Score, a.Score); d != 0 {
			return d
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// Render formats the composition as Markdown-like text: one "## " heading
// per section ("## <context>" for home, "## From <context> (shared: a, b)"
// for cross sections) followed by one "- " line per item. An empty
// composition renders as "".
func (c Composition) Render() string {
	var b strings.Builder
	for i, s := range c.Sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		if s.Kind == SectionHome {
			fmt.Fprintf(&b, "## %s\n", s.Context)
		} else {
			var shared []string
			for _, it := range s.Items {
				for _, v := range it.Via {
					if !slices.Contains(shared, v) {
						shared = append(shared, v)
					}
				}
			}
			slices.Sort(shared)
			fmt.Fprintf(&b, "## From %s (shared: %s)\n", s.Context, strings.Join(shared, ", "))
		}
		for _, it := range s.Items {
			fmt.Fprintf(&b, "- %s\n", strings.Join(strings.Fields(it.Memory.Text), " "))
		}
	}
	return b.String()
}

// unionFind is a disjoint-set forest over entity references whose root is the
// smallest member (by context, then entity), so results do not depend on
// link order.
type unionFind struct {
	parent map[EntityRef]EntityRef
}

func newUnionFind() *unionFind { return &unionFind{parent: map[EntityRef]EntityRef{}} }

func (u *unionFind) find(x EntityRef) EntityRef {
	root := x
	for {
		p, ok := u.parent[root]
		if !ok || p == root {
			break
		}
		root = p
	}
	for x != root { // path compression
		next := u.parent[x]
		u.parent[x] = root
		x = next
	}
	return root
}

func less(a, b EntityRef) bool {
	if a.Context != b.Context {
		return a.Context < b.Context
	}
	return a.Entity < b.Entity
}

func (u *unionFind) union(a, b EntityRef) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if less(rb, ra) {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.parent[ra] = ra
}
