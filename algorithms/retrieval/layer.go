package retrieval

// Layer names one of zenbrain's seven memory layers. The string values are
// the ones stored in the database's layer column.
type Layer string

// The seven layers of DESIGN.md §4.
const (
	// LayerWorking holds the active task focus (at most 7 slots).
	LayerWorking Layer = "working"
	// LayerShortTerm holds the current session's interactions.
	LayerShortTerm Layer = "short_term"
	// LayerEpisodic holds timestamped experiences.
	LayerEpisodic Layer = "episodic"
	// LayerSemantic holds facts, concepts and the knowledge graph.
	LayerSemantic Layer = "semantic"
	// LayerProcedural holds skills and routines.
	LayerProcedural Layer = "procedural"
	// LayerCore holds pinned identity facts that never decay.
	LayerCore Layer = "core"
	// LayerCrossContext holds entity resolution and transfer across contexts.
	LayerCrossContext Layer = "cross_context"
)

// Layers returns the seven layers in the order of DESIGN.md §4.
func Layers() []Layer {
	return []Layer{LayerWorking, LayerShortTerm, LayerEpisodic, LayerSemantic, LayerProcedural, LayerCore, LayerCrossContext}
}

// Valid reports whether l is one of the seven layers.
func (l Layer) Valid() bool {
	switch l {
	case LayerWorking, LayerShortTerm, LayerEpisodic, LayerSemantic, LayerProcedural, LayerCore, LayerCrossContext:
		return true
	}
	return false
}

// QueryClass is the kind of question a recall query asks; it selects the
// layer weights of the fusion step.
type QueryClass string

// The four query classes of DESIGN.md §5.
const (
	// ClassTemporal asks about when something happened or what happened at a
	// time ("what did I do yesterday", "wann war ...").
	ClassTemporal QueryClass = "temporal"
	// ClassProcedural asks how to do something ("how do I deploy", "wie
	// richte ich ... ein").
	ClassProcedural QueryClass = "procedural"
	// ClassFactual asks for a fact ("what is my sister's name", "wer ist ...").
	ClassFactual QueryClass = "factual"
	// ClassGeneral is every other query.
	ClassGeneral QueryClass = "general"
)

// Classes returns the four query classes, in the tie-break order the
// classifier uses (temporal first, general last).
func Classes() []QueryClass {
	return []QueryClass{ClassTemporal, ClassProcedural, ClassFactual, ClassGeneral}
}

// Valid reports whether c is one of the four query classes.
func (c QueryClass) Valid() bool {
	switch c {
	case ClassTemporal, ClassProcedural, ClassFactual, ClassGeneral:
		return true
	}
	return false
}
