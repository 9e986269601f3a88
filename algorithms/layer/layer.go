// Package layer names zenbrain's seven memory layers (DESIGN.md §4). It is the one definition the
// other pure packages share (forgetting, retrieval and pma alias its type), and its string values
// are the labels of the database enum zb.memory_layer.
package layer

// Layer is one of the seven memory layers.
type Layer string

// The seven layers, in the order of DESIGN.md §4.
const (
	// Working holds the active task focus, at most 7 slots per session.
	Working Layer = "working"
	// ShortTerm holds the current session's interactions.
	ShortTerm Layer = "short_term"
	// Episodic holds timestamped experiences.
	Episodic Layer = "episodic"
	// Semantic holds facts, concepts and the knowledge graph.
	Semantic Layer = "semantic"
	// Procedural holds skills and routines.
	Procedural Layer = "procedural"
	// Core holds pinned identity facts, which never decay.
	Core Layer = "core"
	// CrossContext holds entity resolution and transfer across contexts.
	CrossContext Layer = "cross_context"
)

// All returns the seven layers in the order of DESIGN.md §4.
func All() []Layer {
	return []Layer{Working, ShortTerm, Episodic, Semantic, Procedural, Core, CrossContext}
}

// Valid reports whether l is one of the seven layers.
func (l Layer) Valid() bool {
	switch l {
	case Working, ShortTerm, Episodic, Semantic, Procedural, Core, CrossContext:
		return true
	}
	return false
}

// Decays reports whether memories of the layer fade; only core memories never do.
func (l Layer) Decays() bool { return l != Core }
