package prospective

import (
	"sort"
	"strings"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// CueForm is one row of the cue-intention table: a RE2 pattern matched,
// case-insensitively, against the whole cleaned text (white space collapsed,
// trailing ".!" removed), with named groups cue and content.
type CueForm struct {
	// Name identifies the form in tests.
	Name string
	// Lang is the language of the form; it becomes the intention's Lang.
	Lang textproc.Lang
	// Pattern is the RE2 body; it is anchored at both ends.
	Pattern string
	// Entity is true when the cue names someone or something met (a person,
	// a place); the cue then also becomes the intention's CueEntities.
	Entity bool
}

// ReminderForm is one row of the time-reminder table: a RE2 pattern matched,
// case-insensitively, at the start of the cleaned text. What follows it holds
// the content and the time expressions.
type ReminderForm struct {
	// Name identifies the form in tests.
	Name string
	// Lang is the language of the form.
	Lang textproc.Lang
	// Pattern is the RE2 body of the leading trigger phrase.
	Pattern string
}

// TimeKind selects how a [TimeRule] match sets the due time.
type TimeKind string

// The time kinds.
const (
	// TimeIn is "in N units": minutes and hours give now + N units exactly;
	// days, weeks and months give that calendar day (at the stated clock
	// time, else at now's time of day). Offset replaces n and unit when set
	// ("in half an hour").
	TimeIn TimeKind = "in"
	// TimeDay is the day Days from today ("morgen", "the day after
	// tomorrow").
	TimeDay TimeKind = "day"
	// TimeDayPart is a day and a part of it: the day from group day (or
	// Days), the hour from group part (or Hour) ("tomorrow evening").
	TimeDayPart TimeKind = "day_part"
	// TimeWeekday is the next day strictly after today with weekday wd,
	// with an optional part group ("on Friday", "Montagabend").
	TimeWeekday TimeKind = "weekday"
	// TimeNext is the start of the next unit (week: next Monday; month: the
	// first of next month).
	TimeNext TimeKind = "next"
	// TimeClock is a clock time from groups h, min and ampm ("at 9:30",
	// "um 14 Uhr"). Without am/pm hours are read on a 24-hour clock.
	TimeClock TimeKind = "clock"
	// TimePart is a part of the day, group part or Hour ("in the evening",
	// "abends").
	TimePart TimeKind = "part"
	// TimeIgnore consumes a (past) expression so that no later rule reads
	// part of it ("gestern morgen" must not yield "morgen" = tomorrow).
	TimeIgnore TimeKind = "ignore"
)

// TimeRule is one row of the future-time table. Patterns are RE2 bodies
// matched case-insensitively at word boundaries; where matches overlap the
// earlier rule wins. Rows run before the explicit dates and the words
// today/tomorrow/heute/übermorgen taken from the retrieval package's date
// extraction.
type TimeRule struct {
	// Name identifies the rule in tests.
	Name string
	// Lang is the language of the pattern (documentation only; all rules
	// run on all text).
	Lang textproc.Lang
	// Pattern is the RE2 body; groups n, unit, day, part, wd, h, min and
	// ampm carry the parts.
	Pattern string
	// Kind selects the resolution.
	Kind TimeKind
	// Days is the day offset of [TimeDay] and [TimeDayPart] rows without a
	// day group.
	Days int
	// Hour is the hour of [TimeDayPart] and [TimePart] rows without a part
	// group.
	Hour int
	// Minutes is a fixed [TimeIn] offset in minutes ("in half an hour").
	Minutes int
}

// vocabulary holds the word maps the rules' groups are resolved with.
type vocabulary struct {
	numbers  map[string]int
	units    map[string]string // → minute, hour, day, week, month
	weekdays map[string]int    // → time.Weekday
	days     map[string]int    // → day offset
	parts    map[string]int    // → hour
}

func defaultVocabulary() vocabulary {
	return vocabulary{
		numbers: map[string]int{
			"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
			"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3,
			"ein": 1, "eine": 1, "einer": 1, "einem": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4,
			"fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
			"ein paar": 3,
		},
		units: map[string]string{
			"minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
			"hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour",
			"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
			"minuten": "minute", "stunde": "hour", "stunden": "hour", "std": "hour",
			"tag": "day", "tage": "day", "tagen": "day", "woche": "week", "wochen": "week",
			"monat": "month", "monate": "month", "monaten": "month",
		},
		weekdays: map[string]int{
			"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
			"sonntag": 0, "montag": 1, "dienstag": 2, "mittwoch": 3, "donnerstag": 4, "freitag": 5,
			"samstag": 6, "sonnabend": 6,
		},
		days: map[string]int{
			"today": 0, "this": 0, "tomorrow": 1, "heute": 0, "morgen": 1, "übermorgen": 2,
		},
		parts: map[string]int{
			"morning": 9, "noon": 12, "midday": 12, "afternoon": 15, "evening": 19, "night": 21, "midnight": 0,
			"früh": 9, "morgen": 9, "morgens": 9, "vormittag": 10, "vormittags": 10, "mittag": 12,
			"mittags": 12, "nachmittag": 15, "nachmittags": 15, "abend": 19, "abends": 19, "nacht": 21,
			"nachts": 21, "mitternacht": 0,
		},
	}
}

// alt returns a RE2 alternation of the keys of m, longest first.
func alt[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return "(?:" + strings.Join(keys, "|") + ")"
}

// DefaultCueForms returns the English and German cue-intention table.
// Supported forms, with a comma between cue and content where the cue comes
// first:
//
//	when/whenever/if/once/next time I talk|speak|chat to|with <cue>, <content>
//	when/… I see|meet|call|visit|email|text|run into|hear from <cue>, <content>
//	<content> when/whenever/next time I talk to|see|meet… <cue>
//	when/if/once <topic> comes up|is mentioned|is discussed, <content>
//	<content> when/whenever/if <topic> comes up|is mentioned|is discussed
//	wenn/sobald/falls/nächstes Mal wenn ich (mit) <cue> spreche|rede|
//	    telefoniere|treffe|sehe|anrufe|besuche|schreibe, <content>
//	<content>, wenn/sobald ich (mit) <cue> spreche|treffe|sehe…
//	wenn/sobald/falls <Thema> zur Sprache kommt|erwähnt wird|Thema ist|
//	    aufkommt, <content>
//	<content>, wenn/sobald <Thema> zur Sprache kommt|erwähnt wird…
//
// A content that starts with a reminder phrase ("remind me to …",
// "erinnere mich daran, …") has it removed.
func DefaultCueForms() []CueForm {
	when := `(?:when|whenever|if|once|(?:the )?next time)`
	whenAfter := `(?:when|whenever|(?:the )?next time)`
	talk := `(?:talk|speak|chat) (?:to|with)`
	meet := `(?:see|meet|call|phone|visit|email|e-mail|text|message|run into|bump into|hear from)`
	topicVerb := `(?:comes up|come up|is mentioned|gets mentioned|is discussed|gets discussed)`
	wenn := `(?:wenn|sobald|falls|(?:das )?nächste mal,? wenn|beim nächsten mal,? wenn)`
	verbDE := `(?:spreche|rede|telefoniere|chatte|treffe|sehe|anrufe|besuche|schreibe)`
	again := `(?: das nächste mal| wieder| demnächst)?`
	themaDE := `(?:zur sprache kommt|erwähnt wird|thema ist|aufkommt|angesprochen wird)`
	return []CueForm{
		{
			Name: "en_talk_first", Lang: textproc.English, Entity: true,
			Pattern: when + ` i ` + talk + ` (?P<cue>.+?)\s*,\s*(?:then )?(?P<content>.+)`,
		},
		{
			Name: "en_meet_first", Lang: textproc.English, Entity: true,
			Pattern: when + ` i ` + meet + ` (?P<cue>.+?)\s*,\s*(?:then )?(?P<content>.+)`,
		},
		{
			Name: "en_topic_first", Lang: textproc.English,
			Pattern: `(?:when|whenever|if|once) (?P<cue>.+?) ` + topicVerb + `\s*,\s*(?:then )?(?P<content>.+)`,
		},
		{
			Name: "en_talk_last", Lang: textproc.English, Entity: true,
			Pattern: `(?P<content>.+?),? ` + whenAfter + ` i ` + talk + ` (?P<cue>.+?)(?: again| next)?`,
		},
		{
			Name: "en_meet_last", Lang: textproc.English, Entity: true,
			Pattern: `(?P<content>.+?),? ` + whenAfter + ` i ` + meet + ` (?P<cue>.+?)(?: again| next)?`,
		},
		{
			Name: "en_topic_last", Lang: textproc.English,
			Pattern: `(?P<content>.+?),? (?:when|whenever|if|once) (?P<cue>.+?) ` + topicVerb,
		},
		{
			Name: "de_person_first", Lang: textproc.German, Entity: true,
			Pattern: wenn + ` ich (?:mit )?(?P<cue>.+?)` + again + ` ` + verbDE + `\s*,\s*(?:dann )?(?P<content>.+)`,
		},
		{
			Name: "de_thema_first", Lang: textproc.German,
			Pattern: `(?:wenn|sobald|falls) (?P<cue>.+?) ` + themaDE + `\s*,\s*(?:dann )?(?P<content>.+)`,
		},
		{
			Name: "de_person_last", Lang: textproc.German, Entity: true,
			Pattern: `(?P<content>.+?),? (?:wenn|sobald) ich (?:mit )?(?P<cue>.+?)` + again + ` ` + verbDE,
		},
		{
			Name: "de_thema_last", Lang: textproc.German,
			Pattern: `(?P<content>.+?),? (?:wenn|sobald|falls) (?P<cue>.+?) ` + themaDE,
		},
	}
}

// DefaultReminderForms returns the English and German table of reminder
// phrases that introduce a time intention:
//
//	(please) remind me (to|that|about) …, don't/do not (let me) forget (to) …,
//	remember to …, (set a) reminder (to|for|:) …
//	(bitte) erinnere/erinner mich (bitte) (daran) (, dass) …,
//	vergiss nicht (, dass) …, denk(e) (bitte) daran …, nicht vergessen: …,
//	Erinnerung: …
func DefaultReminderForms() []ReminderForm {
	return []ReminderForm{
		{Name: "en_remind_me", Lang: textproc.English, Pattern: `(?:please )?remind me(?: please)?(?: to| that| about| of)?`},
		{Name: "en_dont_forget", Lang: textproc.English, Pattern: `(?:please )?(?:don't|dont|do not) (?:let me )?forget(?: to| that| about)?`},
		{Name: "en_remember", Lang: textproc.English, Pattern: `(?:please )?remember(?: to| that)`},
		{Name: "en_reminder", Lang: textproc.English, Pattern: `(?:(?:set|add|create) a )?reminder(?: for me)?(?: to| that| about| for)?:?`},
		{Name: "de_erinnere", Lang: textproc.German, Pattern: `(?:bitte )?erinnere? mich(?: bitte)?(?:,? daran)?(?:,? dass)?`},
		{Name: "de_vergiss", Lang: textproc.German, Pattern: `(?:bitte )?vergiss nicht(?:,? dass)?`},
		{Name: "de_denk", Lang: textproc.German, Pattern: `(?:bitte )?denke? (?:bitte )?daran(?:,? dass)?`},
		{Name: "de_nicht_vergessen", Lang: textproc.German, Pattern: `nicht vergessen:?`},
		{Name: "de_erinnerung", Lang: textproc.German, Pattern: `erinnerung:?`},
	}
}

// DefaultTimeRules returns the English and German future-time table (see
// [TimeKind] for the resolution of each kind). Supported expressions, beyond
// the retrieval package's explicit dates ("2025-03-15", "15.3.", "March 15",
// "15th of March"; a date without year that has passed this year means next
// year) and its "today", "tonight", "tomorrow", "heute", "übermorgen":
//
//	in N minutes|hours|days|weeks|months, in half an hour,
//	in N Minuten|Stunden|Tagen|Wochen|Monaten, in einer halben Stunde;
//	the day after tomorrow; morgen (alone: tomorrow);
//	today|tomorrow|this morning|afternoon|evening|night, tonight,
//	heute|morgen|übermorgen früh|morgen|vormittag|mittag|nachmittag|abend|nacht;
//	(next|on|this|coming) Monday (morning), (am|nächsten|kommenden) Montag(abend);
//	next week|month, nächste Woche, nächsten Monat;
//	at 9, at 9:30, 9am, 7 p.m., um 9, um 14:30 Uhr, 9 Uhr;
//	in the morning|afternoon|evening, at night|noon|midnight,
//	morgens, vormittags, mittags, nachmittags, abends, nachts, am Abend, um Mitternacht.
//
// Past expressions (yesterday, gestern …) are consumed and ignored.
func DefaultTimeRules() []TimeRule {
	v := defaultVocabulary()
	num := `(?P<n>\d{1,4}|` + alt(v.numbers)[3:]
	unit := `(?P<unit>` + alt(v.units)[3:]
	wd := `(?P<wd>` + alt(v.weekdays)[3:]
	partEN := `(?P<part>morning|afternoon|evening|night)`
	partDE := `(?P<part>früh|morgen|vormittag|mittag|nachmittag|abend|nacht)`
	ampm := `(?P<ampm>am|pm|a\.m\.|p\.m\.)`
	return []TimeRule{
		{Name: "past", Pattern: `(?:the day before yesterday|yesterday|last night|vorgestern|gestern)(?: (?:morning|afternoon|evening|night|morgen|früh|vormittag|mittag|nachmittag|abend|nacht))?`, Kind: TimeIgnore},
		{Name: "en_in_half_hour", Lang: textproc.English, Pattern: `in (?:half an|a half) hour`, Kind: TimeIn, Minutes: 30},
		{Name: "de_in_half_hour", Lang: textproc.German, Pattern: `in einer halben stunde`, Kind: TimeIn, Minutes: 30},
		{Name: "in_n_units", Pattern: `in ` + num + ` ` + unit, Kind: TimeIn},
		{Name: "en_day_after_tomorrow", Lang: textproc.English, Pattern: `(?:the )?day after tomorrow`, Kind: TimeDay, Days: 2},
		{Name: "en_tonight", Lang: textproc.English, Pattern: `tonight`, Kind: TimeDayPart, Hour: 19},
		{Name: "en_day_part", Lang: textproc.English, Pattern: `(?P<day>today|tomorrow|this) ` + partEN, Kind: TimeDayPart},
		{Name: "de_day_part", Lang: textproc.German, Pattern: `(?P<day>heute|übermorgen|morgen) ` + partDE, Kind: TimeDayPart},
		{Name: "en_weekday", Lang: textproc.English, Pattern: `(?:(?:next|on|this coming|this|coming) )?` + wd + `(?: ` + partEN + `)?`, Kind: TimeWeekday},
		{Name: "de_weekday", Lang: textproc.German, Pattern: `(?:(?:am|nächsten|nächster|kommenden|diesen|diesem) )?` + wd + `(?: ?` + partDE + `)?`, Kind: TimeWeekday},
		{Name: "en_next", Lang: textproc.English, Pattern: `next (?P<unit>week|month)`, Kind: TimeNext},
		{Name: "de_next", Lang: textproc.German, Pattern: `(?:nächste|nächsten|nächster|kommende|kommenden) (?P<unit>woche|monat)`, Kind: TimeNext},
		{Name: "en_clock_ampm", Lang: textproc.English, Pattern: `(?:(?:at|by|around) )?(?P<h>\d{1,2})(?::(?P<min>\d{2}))? ?` + ampm, Kind: TimeClock},
		{Name: "en_clock", Lang: textproc.English, Pattern: `(?:at|by|around) (?P<h>\d{1,2})(?::(?P<min>\d{2}))?(?: o'clock)?`, Kind: TimeClock},
		{Name: "de_clock", Lang: textproc.German, Pattern: `(?:um|gegen|bis) (?P<h>\d{1,2})(?:[:.](?P<min>\d{2}))?(?: uhr)?`, Kind: TimeClock},
		{Name: "de_clock_uhr", Lang: textproc.German, Pattern: `(?P<h>\d{1,2})(?:[:.](?P<min>\d{2}))? uhr`, Kind: TimeClock},
		{Name: "en_part", Lang: textproc.English, Pattern: `(?:in the (?P<part>morning|afternoon|evening)|at (?P<part2>night|noon|midday|midnight))`, Kind: TimePart},
		{Name: "de_part", Lang: textproc.German, Pattern: `(?:(?P<part>morgens|vormittags|mittags|nachmittags|abends|nachts)|am (?P<part2>morgen|vormittag|mittag|nachmittag|abend)|in der (?P<part3>nacht)|(?:um|gegen) (?P<part4>mitternacht|mittag))`, Kind: TimePart},
		{Name: "de_morgen", Lang: textproc.German, Pattern: `morgen`, Kind: TimeDay, Days: 1},
	}
}

// wordLists holds the words stripped from the ends of the content once the
// trigger phrase and the time expressions are gone, and the priority
// markers (matched as whole words, case-insensitively; low is checked first
// so that "nicht dringend" is low).
type wordLists struct {
	leading, trailing, low, urgent []string
}

func defaultWordLists() wordLists {
	return wordLists{
		leading: []string{
			"to", "that", "about", "of", "then", "please", "on", "at",
			"an", "daran", "dass", "dann", "bitte", "am", "um",
		},
		trailing: []string{"at", "on", "by", "around", "in", "please", "um", "am", "bis", "gegen", "bitte"},
		low:      []string{"low priority", "no rush", "not urgent", "nicht dringend", "keine eile", "unwichtig"},
		urgent:   []string{"urgent", "urgently", "important", "asap", "high priority", "dringend", "wichtig", "eilig"},
	}
}
