package retrieval

import "github.com/zenbrain/zb/algorithms/layer"

// Layer is one of the seven memory layers; it is [layer.Layer].
type Layer = layer.Layer

// The seven layers (aliases of the constants of package layer).
const (
	LayerWorking      = layer.Working
	LayerShortTerm    = layer.ShortTerm
	LayerEpisodic     = layer.Episodic
	LayerSemantic     = layer.Semantic
	LayerProcedural   = layer.Procedural
	LayerCore         = layer.Core
	LayerCrossContext = layer.CrossContext
)

// Layers returns the seven layers in the order of DESIGN.md §4.
func Layers() []Layer { return layer.All() }

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
