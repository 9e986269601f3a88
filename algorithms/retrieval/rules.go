package retrieval

import (
	"time"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// DefaultRules returns zenbrain's English and German query-classification
// table. Weights: 1.0 for strong cues (a question word that fixes the class,
// "how to", "anleitung"), 0.5 for weak cues (past-tense event phrasing,
// action verbs, attribute nouns) that need company to reach
// [MinScoreDefault]. Words spelled the same in both languages ("name",
// "definition", "tutorial") appear only in the English rows, because every
// rule runs on every query. Date expressions add [DateWeightDefault] to temporal on
// top of these rules.
func DefaultRules() []Rule {
	en, de := textproc.English, textproc.German
	return []Rule{
		// Temporal.
		{Name: "en_when", Lang: en, Class: ClassTemporal, Pattern: `when|what time|what date|how long ago|since when`, Weight: 1.0},
		{Name: "en_recent", Lang: en, Class: ClassTemporal, Pattern: `recently|lately|earlier|previously|the other day|last time|first time|back then|at the time`, Weight: 1.0},
		{Name: "en_past_event", Lang: en, Class: ClassTemporal, Pattern: `(?:did|was|were|have|had) (?:i|we|you|she|he|they)`, Weight: 0.5},
		{Name: "en_sequence", Lang: en, Class: ClassTemporal, Pattern: `before|after|until|during|timeline|history of|chronolog\w*`, Weight: 0.5},
		{Name: "de_wann", Lang: de, Class: ClassTemporal, Pattern: `wann|seit wann|um wie viel uhr|an welchem tag|wie lange her`, Weight: 1.0},
		{Name: "de_recent", Lang: de, Class: ClassTemporal, Pattern: `kürzlich|neulich|vorhin|zuletzt|damals|letztes mal|beim letzten mal|zum ersten mal`, Weight: 1.0},
		{Name: "de_past_event", Lang: de, Class: ClassTemporal, Pattern: `(?:habe|hab|hatte|haben|hatten|war|waren|bin|sind) (?:ich|wir|du|sie|er)`, Weight: 0.5},
		{Name: "de_sequence", Lang: de, Class: ClassTemporal, Pattern: `vorher|nachher|bevor|nachdem|während|verlauf|chronolog\w*`, Weight: 0.5},
		// Procedural.
		{Name: "en_how_to", Lang: en, Class: ClassProcedural, Pattern: `how to|how do|how can|how should|how would|how did (?:i|we|you) (?:set|install|configure|fix|make|build|get)`, Weight: 1.0},
		{Name: "en_steps", Lang: en, Class: ClassProcedural, Pattern: `steps?|step[- ]by[- ]step|instructions?|procedure|process for|workflow|recipe|guide|tutorial|walk me through|best way to|the way to`, Weight: 1.0},
		{Name: "en_action", Lang: en, Class: ClassProcedural, Pattern: `set ?up|install|configure|deploy|fix|build|reset|troubleshoot|migrate|run|cook|bake|repair`, Weight: 0.5},
		{Name: "de_wie", Lang: de, Class: ClassProcedural, Pattern: `wie (?:kann|könnte|mache|macht|muss|müssen|soll|sollte|installiere|richte|funktioniert|geht|bekomme|baue|behebe)`, Weight: 1.0},
		{Name: "de_steps", Lang: de, Class: ClassProcedural, Pattern: `anleitung|schritte?|schritt für schritt|vorgehen|vorgehensweise|ablauf|rezept|arbeitsablauf`, Weight: 1.0},
		{Name: "de_action", Lang: de, Class: ClassProcedural, Pattern: `einrichten|installieren|konfigurieren|beheben|reparieren|erstellen|backen|kochen|zurücksetzen|aufsetzen`, Weight: 0.5},
		// Factual.
		{Name: "en_wh_start", Lang: en, Class: ClassFactual, Pattern: `^(?:what|who|whom|whose|which|where)`, Weight: 0.75},
		{Name: "en_wh_is", Lang: en, Class: ClassFactual, Pattern: `(?:what|who|which|where)(?: is| are|'s|'re)|is there|are there`, Weight: 0.5},
		{Name: "en_how_quantity", Lang: en, Class: ClassFactual, Pattern: `how (?:many|much|old|tall|far|big|often)`, Weight: 1.0},
		{Name: "en_attribute", Lang: en, Class: ClassFactual, Pattern: `name|favou?rite|birthday|age|address|email|phone|number|live|lives|works? (?:at|for|as)|job|allergic|prefer|prefers|preference|definition|meaning|mean|capital of`, Weight: 0.5},
		{Name: "de_wh_start", Lang: de, Class: ClassFactual, Pattern: `^(?:was|wer|wem|wen|wessen|welche|welcher|welches|welchen|welchem|wo|woher|wohin)`, Weight: 0.75},
		{Name: "de_wh_is", Lang: de, Class: ClassFactual, Pattern: `(?:was|wer|welche|welcher|welches|wo) (?:ist|sind|war|waren)|gibt es`, Weight: 0.5},
		{Name: "de_how_quantity", Lang: de, Class: ClassFactual, Pattern: `wie (?:viele?|alt|groß|weit|oft|heißt|heisst)`, Weight: 1.0},
		{Name: "de_attribute", Lang: de, Class: ClassFactual, Pattern: `lieblings\w*|geburtstag|alter|adresse|telefonnummer|nummer|wohnt|wohne|arbeitet (?:bei|als)|beruf|allergisch|bevorzugt|bedeutung|bedeutet|hauptstadt`, Weight: 0.5},
	}
}

// defaultClassifier is compiled once from the default tables and only read
// afterwards (a Classifier is immutable).
var defaultClassifier = func() *Classifier {
	c, err := NewClassifier(nil)
	if err != nil {
		panic("retrieval: default classification tables do not compile: " + err.Error())
	}
	return c
}()

// Classify classifies query with the default tables; see
// [Classifier.Classify].
func Classify(query string, now time.Time) Classification {
	return defaultClassifier.Classify(query, now)
}
