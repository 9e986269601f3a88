package retrieval

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// TimeRange is the half-open time interval [From, To).
type TimeRange struct {
	// From is the first instant inside the range.
	From time.Time
	// To is the first instant after the range.
	To time.Time
}

// Contains reports whether From ≤ t < To.
func (r TimeRange) Contains(t time.Time) bool {
	return !t.Before(r.From) && t.Before(r.To)
}

// String formats the range as "[From, To)" in RFC 3339.
func (r TimeRange) String() string {
	return fmt.Sprintf("[%s, %s)", r.From.Format(time.RFC3339), r.To.Format(time.RFC3339))
}

// DateRef is one relative or explicit date expression found in a query,
// resolved against the classifier's now.
type DateRef struct {
	// Text is the matched expression in normalized (lower-case) form.
	Text string
	// Rule is the name of the [DateRule] that matched.
	Rule string
	// Range is the time span the expression denotes.
	Range TimeRange
}

// DateKind selects how a [DateRule]'s match is turned into a [TimeRange].
// Units are hour, day, week (ISO, starting Monday), month and year; calendar
// arithmetic happens in now's location, so days are calendar days even
// across daylight-saving changes.
type DateKind string

const (
	// DateDayOffset is the calendar day DateRule.Offset days from today
	// (−1 for "yesterday").
	DateDayOffset DateKind = "day_offset"
	// DateAgo is "N units ago": the calendar unit containing now − N units
	// (the day, the ISO week, the month or the year). For hours it is the
	// two-hour window [now − (N+1)h, now − (N−1)h).
	DateAgo DateKind = "ago"
	// DateRolling is "in the last N units": [now − N units, now). Without a
	// number N is 1 ("in the past week").
	DateRolling DateKind = "rolling"
	// DatePrevious is "last week/month/year": the calendar unit before the
	// one containing now. For hours it behaves like DateRolling.
	DatePrevious DateKind = "previous"
	// DateCurrent is "this week/month/year": the calendar unit containing
	// now.
	DateCurrent DateKind = "current"
	// DateWeekday is "last Monday" / "on Monday": the most recent day with
	// that weekday strictly before today.
	DateWeekday DateKind = "weekday"
	// DateDay is an explicit calendar day. A missing year means the most
	// recent such day on or before today; two-digit years 00–69 are 20xx and
	// 70–99 are 19xx.
	DateDay DateKind = "day"
	// DateMonth is a named month with or without a year. Without a year it is
	// the most recent such month that has started. With the since group
	// ("since March") the range runs from the month's start to now.
	DateMonth DateKind = "month"
	// DateYear is a four-digit year (1900–2099) after "in", "im", "during",
	// "since" or "seit". With the since group the range runs from the year's
	// start to now.
	DateYear DateKind = "year"
)

// DateRule is one row of the date-extraction table. Patterns are RE2 bodies
// matched against [textproc.Normalize]d query text (lower case, NFKC,
// typographic apostrophes replaced by ') and must start and end at word
// boundaries (a letter or digit must not touch the match on either side).
// Named groups carry the parts: n (a count in digits or words), unit, wd
// (weekday), month, d, m, y and since.
type DateRule struct {
	// Name identifies the rule in [DateRef.Rule] and in test output.
	Name string
	// Lang is the language the pattern is written for (documentation only;
	// every rule runs on every query).
	Lang textproc.Lang
	// Pattern is the RE2 body described above.
	Pattern string
	// Kind selects the resolution.
	Kind DateKind
	// Offset is the day offset for [DateDayOffset].
	Offset int
	// Unit is the unit when the pattern has no unit group.
	Unit string
}

// MaxDateCount is the largest count a relative date may carry ("9999 days
// ago"); larger counts are ignored rather than overflowing calendar
// arithmetic.
const MaxDateCount = 9999

var (
	numberWords = map[string]int{
		"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
		"a few": 3, "few": 3, "several": 3,
		"ein": 1, "eine": 1, "einem": 1, "einer": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4,
		"fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
		"ein paar": 3, "paar": 3, "einigen": 3, "mehreren": 3,
	}
	monthNames = map[string]time.Month{
		"january": 1, "jan": 1, "januar": 1, "jänner": 1,
		"february": 2, "feb": 2, "februar": 2,
		"march": 3, "mar": 3, "märz": 3, "mär": 3,
		"april": 4, "apr": 4,
		"may": 5, "mai": 5,
		"june": 6, "jun": 6, "juni": 6,
		"july": 7, "jul": 7, "juli": 7,
		"august": 8, "aug": 8,
		"september": 9, "sep": 9, "sept": 9,
		"october": 10, "oct": 10, "oktober": 10, "okt": 10,
		"november": 11, "nov": 11,
		"december": 12, "dec": 12, "dezember": 12, "dez": 12,
	}
	weekdayNames = map[string]time.Weekday{
		"monday": time.Monday, "montag": time.Monday,
		"tuesday": time.Tuesday, "dienstag": time.Tuesday,
		"wednesday": time.Wednesday, "mittwoch": time.Wednesday,
		"thursday": time.Thursday, "donnerstag": time.Thursday,
		"friday": time.Friday, "freitag": time.Friday,
		"saturday": time.Saturday, "samstag": time.Saturday, "sonnabend": time.Saturday,
		"sunday": time.Sunday, "sonntag": time.Sunday,
	}
)

// alternation returns an RE2 alternation of the keys of m, longest first so
// that leftmost-first matching prefers "a couple of" over "a".
func alternation[V any](m map[string]V) string {
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
	for i, k := range keys {
		keys[i] = regexp.QuoteMeta(k)
	}
	return "(?:" + strings.Join(keys, "|") + ")"
}

// DefaultDateRules returns zenbrain's English and German date-extraction
// table. Earlier rules win where matches overlap, so specific forms come
// before general ones. German "morgen" alone is not read as "tomorrow"
// because it also means "morning".
func DefaultDateRules() []DateRule {
	num := `(?P<n>\d+|` + alternation(numberWords)[3:]
	month := `(?P<month>` + alternation(monthNames)[3:]
	wd := `(?P<wd>` + alternation(weekdayNames)[3:]
	unitEN := `(?P<unit>hours?|days?|weeks?|months?|years?)`
	unitDE := `(?P<unit>stunden?|tagen?|tage|tag|wochen?|monaten?|monate|monat|jahren?|jahre|jahr)`
	unitDESingle := `(?P<unit>woche|monat|jahr)`
	return []DateRule{
		// Explicit dates.
		{Name: "iso_date", Pattern: `(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})`, Kind: DateDay},
		{Name: "en_slash_date", Lang: textproc.English, Pattern: `(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}|\d{2})`, Kind: DateDay},
		{Name: "de_dot_date", Lang: textproc.German, Pattern: `(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4}|\d{2})?`, Kind: DateDay},
		{Name: "de_day_month", Lang: textproc.German, Pattern: `(?P<d>\d{1,2})\. ?` + month + `(?: (?P<y>\d{4}))?`, Kind: DateDay},
		{Name: "en_month_day", Lang: textproc.English, Pattern: month + `\.? (?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,? (?P<y>\d{4}))?`, Kind: DateDay},
		{Name: "en_day_month", Lang: textproc.English, Pattern: `(?P<d>\d{1,2})(?:st|nd|rd|th)?(?: of)? ` + month + `(?:,? (?P<y>\d{4}))?`, Kind: DateDay},
		// Days relative to today.
		{Name: "en_day_before_yesterday", Lang: textproc.English, Pattern: `the day before yesterday`, Kind: DateDayOffset, Offset: -2},
		{Name: "en_yesterday", Lang: textproc.English, Pattern: `yesterday|last night`, Kind: DateDayOffset, Offset: -1},
		{Name: "en_today", Lang: textproc.English, Pattern: `today|tonight|this (?:morning|afternoon|evening)`, Kind: DateDayOffset},
		{Name: "en_tomorrow", Lang: textproc.English, Pattern: `tomorrow`, Kind: DateDayOffset, Offset: 1},
		{Name: "de_vorgestern", Lang: textproc.German, Pattern: `vorgestern(?: (?:morgen|früh|vormittag|mittag|nachmittag|abend|nacht))?`, Kind: DateDayOffset, Offset: -2},
		{Name: "de_gestern", Lang: textproc.German, Pattern: `gestern(?: (?:morgen|früh|vormittag|mittag|nachmittag|abend|nacht))?|letzte nacht`, Kind: DateDayOffset, Offset: -1},
		{Name: "de_heute", Lang: textproc.German, Pattern: `heute(?: (?:morgen|früh|vormittag|mittag|nachmittag|abend|nacht))?`, Kind: DateDayOffset},
		{Name: "de_uebermorgen", Lang: textproc.German, Pattern: `übermorgen`, Kind: DateDayOffset, Offset: 2},
		// Counts of units.
		{Name: "en_rolling_n", Lang: textproc.English, Pattern: `(?:in |over |during )?(?:the )?(?:last|past|previous) ` + num + ` ` + unitEN, Kind: DateRolling},
		{Name: "en_ago", Lang: textproc.English, Pattern: num + ` ` + unitEN + ` ago`, Kind: DateAgo},
		{Name: "de_rolling_n", Lang: textproc.German, Pattern: `(?:in den |während der |innerhalb der )?(?:letzten|vergangenen|zurückliegenden) ` + num + ` ` + unitDE, Kind: DateRolling},
		{Name: "de_ago", Lang: textproc.German, Pattern: `vor ` + num + ` ` + unitDE, Kind: DateAgo},
		// Named calendar units.
		{Name: "en_rolling_past", Lang: textproc.English, Pattern: `(?:in |over |during )?the past (?P<unit>hour|day|week|month|year)`, Kind: DateRolling},
		{Name: "en_previous", Lang: textproc.English, Pattern: `(?:last|previous|past) (?P<unit>hour|week|month|year)`, Kind: DatePrevious},
		{Name: "en_current", Lang: textproc.English, Pattern: `this (?P<unit>week|month|year)`, Kind: DateCurrent},
		{Name: "de_previous", Lang: textproc.German, Pattern: `(?:letzte|letzten|letztes|vergangene|vergangenen|vergangenes|vorige|vorigen|voriges|vergangener|letzter|voriger) ` + unitDESingle, Kind: DatePrevious},
		{Name: "de_current", Lang: textproc.German, Pattern: `(?:diese|diesen|dieses|dieser|diesem) ` + unitDESingle, Kind: DateCurrent},
		// Weekdays.
		{Name: "en_weekday", Lang: textproc.English, Pattern: `(?:last|on|this past|past) ` + wd, Kind: DateWeekday},
		{Name: "de_weekday", Lang: textproc.German, Pattern: `(?:letzten|letzter|vergangenen|vorigen|am) ` + wd, Kind: DateWeekday},
		// Months and years.
		{Name: "month_year", Pattern: `(?:(?P<since>since|seit) |in |im |during )?` + month + `,? (?P<y>\d{4})`, Kind: DateMonth},
		{Name: "month", Pattern: `(?:(?P<since>since|seit)|in|im|during) ` + month, Kind: DateMonth},
		{Name: "year", Pattern: `(?:(?P<since>since|seit)|in|im|im jahr|in the year|during) (?P<y>(?:19|20)\d{2})`, Kind: DateYear},
	}
}

// dateMatcher is a compiled [DateRule].
type dateMatcher struct {
	rule DateRule
	re   *regexp.Regexp
	lits [][]string // requiredLiterals of the pattern
}

func compileDateRules(rules []DateRule) ([]dateMatcher, error) {
	out := make([]dateMatcher, 0, len(rules))
	for _, r := range rules {
		re, err := compileBounded(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("error compiling date rule %q: %w", r.Name, err)
		}
		switch r.Kind {
		case DateDayOffset, DateAgo, DateRolling, DatePrevious, DateCurrent, DateWeekday, DateDay, DateMonth, DateYear:
		default:
			return nil, fmt.Errorf("error compiling date rule %q: unknown kind %q", r.Name, r.Kind)
		}
		out = append(out, dateMatcher{rule: r, re: re, lits: requiredLiterals(r.Pattern)})
	}
	return out, nil
}

// compileBounded compiles body so that it can only start at a word boundary:
// the match is preceded by the start of text or a rune that is neither letter
// nor digit. The body is capture group "body". The trailing boundary is
// checked by [boundedMatches].
func compileBounded(body string) (*regexp.Regexp, error) {
	return regexp.Compile(`(?:^|[^\p{L}\p{N}])(?P<body>` + body + `)`)
}

// requiredLiterals returns groups of strings such that every match of the pattern body
// contains at least one string of each group, or nil when it finds none (a pattern that may
// match without any fixed text, or one that folds case). boundedMatches skips the regular
// expression when the text misses a group: a few substring tests instead of a backtracking
// search at every position, which cost ≈ 5 µs per rule and text of a sentence — 0.2 ms for the
// 50 rules of each stored memory and recall query, most of which match nothing.
func requiredLiterals(body string) [][]string {
	re, err := syntax.Parse(body, syntax.Perl)
	if err != nil {
		return nil
	}
	return literalsOf(re)
}

func literalsOf(re *syntax.Regexp) [][]string {
	if l, ok := finiteLanguage(re); ok {
		if slices.Contains(l, "") {
			return nil
		}
		return [][]string{l}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part is in the match: each part's groups, consecutive parts with a finite
		// language joined into one (their concatenations: longer strings, fewer false hits).
		var out [][]string
		run := []string{""}
		flush := func() {
			if !slices.Contains(run, "") {
				out = append(out, run)
			}
			run = []string{""}
		}
		for _, sub := range re.Sub {
			if l, ok := finiteLanguage(sub); ok && len(run)*len(l) <= maxFinite {
				run = concatLanguages(run, l)
				continue
			}
			flush()
			out = append(out, literalsOf(sub)...)
		}
		flush()
		return out
	case syntax.OpAlternate:
		// One alternative is the match: one group, the union of each alternative's most
		// selective group (that whose shortest string is longest), if each has one.
		var out []string
		for _, sub := range re.Sub {
			gs := literalsOf(sub)
			if gs == nil {
				return nil
			}
			best := gs[0]
			for _, g := range gs[1:] {
				if shortest(g) > shortest(best) {
					best = g
				}
			}
			out = append(out, best...)
		}
		return [][]string{out}
	}
	return nil
}

// maxFinite bounds the finite languages literalsOf builds.
const maxFinite = 64

// finiteLanguage returns every string re matches when they are few (at most maxFinite) and
// re folds no case.
func finiteLanguage(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		// A small class (the parser factors "jun|jul" into "ju[ln]").
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == 8 {
					return nil, false
				}
				out = append(out, string(r))
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture:
		return finiteLanguage(re.Sub[0])
	case syntax.OpQuest:
		l, ok := finiteLanguage(re.Sub[0])
		if !ok || len(l) >= maxFinite {
			return nil, false
		}
		return append([]string{""}, l...), true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			l, ok := finiteLanguage(sub)
			if !ok || len(out)*len(l) > maxFinite {
				return nil, false
			}
			out = concatLanguages(out, l)
		}
		return out, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l, ok := finiteLanguage(sub)
			if !ok || len(out)+len(l) > maxFinite {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	}
	return nil, false
}

func concatLanguages(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func shortest(ls []string) int {
	n := len(ls[0])
	for _, l := range ls[1:] {
		n = min(n, len(l))
	}
	return n
}

// boundedMatches returns the submatch index slices of re in s whose body ends
// at a word boundary. Index pairs refer to s.
func boundedMatches(re *regexp.Regexp, lits [][]string, s string) [][]int {
	for _, g := range lits {
		if !slices.ContainsFunc(g, func(l string) bool { return strings.Contains(s, l) }) {
			return nil
		}
	}
	var out [][]int
	body := re.SubexpIndex("body")
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		end := m[2*body+1]
		if end < len(s) {
			r, _ := utf8.DecodeRuneInString(s[end:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// extractDates finds the date expressions in the normalized text s and
// resolves them against now. Overlapping matches of later rules are dropped.
// The result is ordered by position in s.
func extractDates(matchers []dateMatcher, s string, now time.Time) []DateRef {
	type found struct {
		start, end int
		ref        DateRef
	}
	var taken []found
	for _, dm := range matchers {
		body := dm.re.SubexpIndex("body")
		for _, m := range boundedMatches(dm.re, dm.lits, s) {
			start, end := m[2*body], m[2*body+1]
			overlap := false
			for _, f := range taken {
				if start < f.end && f.start < end {
					overlap = true
					break
				}
			}
			if overlap {
				continue
			}
			group := func(name string) string {
				i := dm.re.SubexpIndex(name)
				if i < 0 || m[2*i] < 0 {
					return ""
				}
				return s[m[2*i]:m[2*i+1]]
			}
			r, ok := resolveDate(dm.rule, group, now)
			if !ok {
				continue
			}
			taken = append(taken, found{start: start, end: end, ref: DateRef{Text: s[start:end], Rule: dm.rule.Name, Range: r}})
		}
	}
	sort.SliceStable(taken, func(i, j int) bool { return taken[i].start < taken[j].start })
	out := make([]DateRef, len(taken))
	for i, f := range taken {
		out[i] = f.ref
	}
	return out
}

func startOfDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

func addDays(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d+n, 0, 0, 0, 0, t.Location())
}

func startOfWeek(t time.Time) time.Time {
	offset := (int(t.Weekday()) + 6) % 7 // Monday = 0
	return addDays(t, -offset)
}

// unitName maps English and German unit words to hour, day, week, month or
// year.
func unitName(u string) string {
	switch {
	case strings.HasPrefix(u, "hour"), strings.HasPrefix(u, "stunde"):
		return "hour"
	case strings.HasPrefix(u, "day"), strings.HasPrefix(u, "tag"):
		return "day"
	case strings.HasPrefix(u, "week"), strings.HasPrefix(u, "woche"):
		return "week"
	case strings.HasPrefix(u, "month"), strings.HasPrefix(u, "monat"):
		return "month"
	case strings.HasPrefix(u, "year"), strings.HasPrefix(u, "jahr"):
		return "year"
	}
	return ""
}

// calendarUnit returns the calendar unit containing now shifted by k units
// (k = 0: the current unit, k = −1: the previous one).
func calendarUnit(unit string, now time.Time, k int) (TimeRange, bool) {
	loc := now.Location()
	y, m, _ := now.Date()
	switch unit {
	case "day":
		from := addDays(now, k)
		return TimeRange{From: from, To: addDays(from, 1)}, true
	case "week":
		from := addDays(startOfWeek(now), 7*k)
		return TimeRange{From: from, To: addDays(from, 7)}, true
	case "month":
		from := time.Date(y, m+time.Month(k), 1, 0, 0, 0, 0, loc)
		return TimeRange{From: from, To: time.Date(y, m+time.Month(k)+1, 1, 0, 0, 0, 0, loc)}, true
	case "year":
		return TimeRange{From: time.Date(y+k, 1, 1, 0, 0, 0, 0, loc), To: time.Date(y+k+1, 1, 1, 0, 0, 0, 0, loc)}, true
	}
	return TimeRange{}, false
}

// shift returns now moved back by n units (calendar arithmetic).
func shiftBack(unit string, now time.Time, n int) (time.Time, bool) {
	switch unit {
	case "hour":
		return now.Add(-time.Duration(n) * time.Hour), true
	case "day":
		return now.AddDate(0, 0, -n), true
	case "week":
		return now.AddDate(0, 0, -7*n), true
	case "month":
		return now.AddDate(0, -n, 0), true
	case "year":
		return now.AddDate(-n, 0, 0), true
	}
	return time.Time{}, false
}

func parseCount(s string) (int, bool) {
	if s == "" {
		return 1, true
	}
	if n, ok := numberWords[s]; ok {
		return n, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxDateCount {
		return 0, false
	}
	return n, true
}

func parseYear(s string) (int, bool) {
	y, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	if len(s) == 2 {
		if y < 70 {
			return 2000 + y, true
		}
		return 1900 + y, true
	}
	if len(s) != 4 {
		return 0, false
	}
	return y, true
}

func resolveDate(rule DateRule, group func(string) string, now time.Time) (TimeRange, bool) {
	loc := now.Location()
	unit := rule.Unit
	if u := group("unit"); u != "" {
		unit = unitName(u)
	}
	switch rule.Kind {
	case DateDayOffset:
		return calendarUnit("day", now, rule.Offset)
	case DateAgo:
		n, ok := parseCount(group("n"))
		if !ok {
			return TimeRange{}, false
		}
		if unit == "hour" {
			return TimeRange{From: now.Add(-time.Duration(n+1) * time.Hour), To: now.Add(-time.Duration(n-1) * time.Hour)}, true
		}
		return calendarUnit(unit, now, -n)
	case DateRolling:
		n, ok := parseCount(group("n"))
		if !ok {
			return TimeRange{}, false
		}
		from, ok := shiftBack(unit, now, n)
		if !ok {
			return TimeRange{}, false
		}
		return TimeRange{From: from, To: now}, true
	case DatePrevious:
		if unit == "hour" {
			return TimeRange{From: now.Add(-time.Hour), To: now}, true
		}
		return calendarUnit(unit, now, -1)
	case DateCurrent:
		return calendarUnit(unit, now, 0)
	case DateWeekday:
		want, ok := weekdayNames[group("wd")]
		if !ok {
			return TimeRange{}, false
		}
		back := (int(now.Weekday()) - int(want) + 7) % 7
		if back == 0 {
			back = 7
		}
		return calendarUnit("day", now, -back)
	case DateDay:
		return resolveDay(group, now)
	case DateMonth:
		mo, ok := monthNames[group("month")]
		if !ok {
			return TimeRange{}, false
		}
		y := now.Year()
		if ys := group("y"); ys != "" {
			if y, ok = parseYear(ys); !ok {
				return TimeRange{}, false
			}
		} else if mo > now.Month() {
			y--
		}
		r := TimeRange{From: time.Date(y, mo, 1, 0, 0, 0, 0, loc), To: time.Date(y, mo+1, 1, 0, 0, 0, 0, loc)}
		return sinceRange(r, group("since") != "", now), true
	case DateYear:
		y, ok := parseYear(group("y"))
		if !ok {
			return TimeRange{}, false
		}
		r := TimeRange{From: time.Date(y, 1, 1, 0, 0, 0, 0, loc), To: time.Date(y+1, 1, 1, 0, 0, 0, 0, loc)}
		return sinceRange(r, group("since") != "", now), true
	}
	return TimeRange{}, false
}

// sinceRange turns r into [r.From, now) for "since" expressions whose start
// lies before now; otherwise it returns r unchanged.
func sinceRange(r TimeRange, since bool, now time.Time) TimeRange {
	if since && r.From.Before(now) {
		return TimeRange{From: r.From, To: now}
	}
	return r
}

func resolveDay(group func(string) string, now time.Time) (TimeRange, bool) {
	loc := now.Location()
	d, err := strconv.Atoi(group("d"))
	if err != nil {
		return TimeRange{}, false
	}
	var mo time.Month
	if name := group("month"); name != "" {
		var ok bool
		if mo, ok = monthNames[name]; !ok {
			return TimeRange{}, false
		}
	} else {
		mi, err := strconv.Atoi(group("m"))
		if err != nil {
			return TimeRange{}, false
		}
		mo = time.Month(mi)
	}
	if mo < time.January || mo > time.December || d < 1 || d > 31 {
		return TimeRange{}, false
	}
	var y int
	if ys := group("y"); ys != "" {
		var ok bool
		if y, ok = parseYear(ys); !ok {
			return TimeRange{}, false
		}
	} else {
		y = now.Year()
		if time.Date(y, mo, d, 0, 0, 0, 0, loc).After(startOfDay(now)) {
			y--
		}
	}
	from := time.Date(y, mo, d, 0, 0, 0, 0, loc)
	if from.Day() != d || from.Month() != mo {
		return TimeRange{}, false // 31 April, 30 February
	}
	return TimeRange{From: from, To: time.Date(y, mo, d+1, 0, 0, 0, 0, loc)}, true
}
