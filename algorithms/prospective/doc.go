// Package prospective implements zenbrain's prospective memory [prospective]
// (DESIGN.md §6 "Beyond the fifteen"; reference notes §6.3): intentions the
// user wants to be reminded of, fired by time or by a cue.
//
// # Intentions and their lifecycle
//
// An [Intention] has a [Trigger]: [TriggerTime] fires at DueAt (the worker
// asks [DueByTime] which pending intentions are due and fires them);
// [TriggerCue] fires when a stored or recalled text matches its cue
// ([MatchCue]). The lifecycle is
//
//	pending → fired | dismissed | expired,  expired → dismissed
//
// with fired and dismissed terminal; [Fire], [Dismiss] and [Expire] refuse
// other moves with [ErrTransition]. A pending intention whose ExpiresAt has
// come is expired ([ExpiredBy]) and can no longer fire. Unlike the
// reference, priorities are ordered numbers (the reference sorted the text
// labels, so "medium" ranked above "high") and the reference's unchecked
// "event" trigger does not exist: cue matching replaces it.
//
// # Cue matching
//
// [MatchCue] fires by entity (a cue entity and a text entity whose words
// overlap fully in the shorter name: overlap coefficient ≥ 1), by keyword
// (all the cue's stemmed content terms in the text, or term Jaccard ≥ 0.5)
// or by embedding (cosine ≥ 0.8), and reports the path and its score.
//
// # Parsing
//
// [Parse] (or a [Parser] built from custom tables) turns English and German
// sentences into intentions: "remind me to call mom tomorrow at 9",
// "erinnere mich morgen an den Zahnarzt", "erinnere mich in zwei Stunden an
// den Ofen", "when I talk to Anna, ask about the trip", "wenn ich mit Anna
// spreche, frag nach der Reise". The forms are tables kept as data ([DefaultCueForms],
// [DefaultReminderForms], [DefaultTimeRules]); explicit dates and the
// words today/tomorrow/heute/übermorgen come from the retrieval package's
// date extraction, rolled forward a year when a date without year has
// passed.
//
// The package is pure: no I/O, no clock (now is a parameter), no mutable
// globals.
package prospective
