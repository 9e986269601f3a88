package prospective

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/retrieval"
)

// Defaults of [ParseConfig].
const (
	// DefaultHourDefault is the hour of a due day without a clock time or
	// part of day.
	DefaultHourDefault = 9
	// TimeGraceDefault is how long after DueAt an unfired time intention
	// expires.
	TimeGraceDefault = 7 * 24 * time.Hour
	// CueTTLDefault is how long after creation an unfired cue intention
	// expires.
	CueTTLDefault = 30 * 24 * time.Hour
	// MaxParseBytes bounds the text [Parser.Parse] accepts; a reminder is a
	// sentence, not a document.
	MaxParseBytes = 500
)

// ParseConfig holds the parameters and tables of a [Parser]. A zero field
// takes its default.
type ParseConfig struct {
	// DefaultHour is the hour (1–23) of a due day without clock time or part
	// of day. Defaults to [DefaultHourDefault] (9).
	DefaultHour int
	// TimeGrace is added to DueAt to give a time intention's ExpiresAt.
	// Defaults to [TimeGraceDefault] (7 days); −1 means never expire.
	TimeGrace time.Duration
	// CueTTL is added to now to give a cue intention's ExpiresAt. Defaults
	// to [CueTTLDefault] (30 days); −1 means never expire.
	CueTTL time.Duration
	// CueForms is the cue table. Nil means [DefaultCueForms].
	CueForms []CueForm
	// ReminderForms is the reminder-phrase table. Nil means
	// [DefaultReminderForms].
	ReminderForms []ReminderForm
	// TimeRules is the future-time table. Nil means [DefaultTimeRules].
	TimeRules []TimeRule
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *ParseConfig) WithDefaults() *ParseConfig {
	if c == nil {
		c = &ParseConfig{}
	}
	out := *c
	out.DefaultHour = cmp.Or(out.DefaultHour, DefaultHourDefault)
	out.TimeGrace = cmp.Or(out.TimeGrace, TimeGraceDefault)
	out.CueTTL = cmp.Or(out.CueTTL, CueTTLDefault)
	if out.CueForms == nil {
		out.CueForms = DefaultCueForms()
	}
	if out.ReminderForms == nil {
		out.ReminderForms = DefaultReminderForms()
	}
	if out.TimeRules == nil {
		out.TimeRules = DefaultTimeRules()
	}
	return &out
}

type cueMatcher struct {
	form CueForm
	re   *regexp.Regexp
}

type reminderMatcher struct {
	form ReminderForm
	re   *regexp.Regexp
}

type timeMatcher struct {
	rule TimeRule
	re   *regexp.Regexp
}

// Parser turns English and German reminder sentences into intentions. It is
// immutable and safe for concurrent use.
type Parser struct {
	cfg       ParseConfig
	cues      []cueMatcher
	reminders []reminderMatcher
	times     []timeMatcher
	vocab     vocabulary
	words     wordLists
	lowRe     *regexp.Regexp
	urgentRe  *regexp.Regexp
	yearRe    *regexp.Regexp
}

// NewParser compiles the tables of cfg (nil: all defaults). It returns an
// error wrapping [ErrInvalidInput] naming the row whose pattern does not
// compile or lacks its groups, or a parameter out of range.
func NewParser(cfg *ParseConfig) (*Parser, error) {
	c := cfg.WithDefaults()
	switch {
	case c.DefaultHour < 1 || c.DefaultHour > 23:
		return nil, wrapf(ErrInvalidInput, "ParseConfig.DefaultHour must be in 1..23, got %d", c.DefaultHour)
	case c.TimeGrace < -1 || c.CueTTL < -1:
		return nil, wrapf(ErrInvalidInput, "ParseConfig.TimeGrace and CueTTL must be positive or -1, got %v and %v", c.TimeGrace, c.CueTTL)
	}
	p := &Parser{cfg: *c, vocab: defaultVocabulary(), words: defaultWordLists()}
	for _, f := range c.CueForms {
		re, err := regexp.Compile(`(?i)^(?:` + f.Pattern + `)$`)
		if err != nil || re.SubexpIndex("cue") < 0 || re.SubexpIndex("content") < 0 {
			return nil, wrapf(ErrInvalidInput, "cue form %q does not compile with groups cue and content", f.Name)
		}
		p.cues = append(p.cues, cueMatcher{form: f, re: re})
	}
	for _, f := range c.ReminderForms {
		re, err := regexp.Compile(`(?i)^(?:` + f.Pattern + `)(?:[\s,:;]+|$)(?P<rest>.*)$`)
		if err != nil {
			return nil, wrapf(ErrInvalidInput, "reminder form %q does not compile", f.Name)
		}
		p.reminders = append(p.reminders, reminderMatcher{form: f, re: re})
	}
	for _, r := range c.TimeRules {
		re, err := regexp.Compile(`(?i)(?:^|[^\p{L}\p{N}])(?P<body>` + r.Pattern + `)`)
		if err != nil {
			return nil, wrapf(ErrInvalidInput, "time rule %q does not compile", r.Name)
		}
		switch r.Kind {
		case TimeIn, TimeDay, TimeDayPart, TimeWeekday, TimeNext, TimeClock, TimePart, TimeIgnore:
		default:
			return nil, wrapf(ErrInvalidInput, "time rule %q has unknown kind %q", r.Name, r.Kind)
		}
		p.times = append(p.times, timeMatcher{rule: r, re: re})
	}
	yr, err := regexp.Compile(`\d{4}|[./]\d{2}$`)
	if err != nil {
		return nil, wrapf(ErrInvalidInput, "year pattern does not compile")
	}
	p.yearRe = yr
	wordsRe := func(list []string) (*regexp.Regexp, error) {
		quoted := make([]string, len(list))
		for i, w := range list {
			quoted[i] = regexp.QuoteMeta(w)
		}
		// Longest first: leftmost-first alternation must prefer "urgently"
		// over "urgent".
		slices.SortStableFunc(quoted, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
		return regexp.Compile(`(?i)(?:^|[^\p{L}\p{N}])(?P<body>` + strings.Join(quoted, "|") + `)`)
	}
	if p.lowRe, err = wordsRe(p.words.low); err != nil {
		return nil, wrapf(ErrInvalidInput, "low-priority words do not compile")
	}
	if p.urgentRe, err = wordsRe(p.words.urgent); err != nil {
		return nil, wrapf(ErrInvalidInput, "urgent words do not compile")
	}
	return p, nil
}

var defaultParser = sync.OnceValues(func() (*Parser, error) { return NewParser(nil) })

// Parse parses text with the default tables; see [Parser.Parse].
func Parse(text string, now time.Time) (Intention, error) {
	p, err := defaultParser()
	if err != nil {
		return Intention{}, err
	}
	return p.Parse(text, now)
}

// span is a matched time expression.
type span struct {
	start, end int
	rule       TimeRule
	group      func(names ...string) string
	date       *retrieval.DateRef
}

// boundedAll returns the submatch indexes of re in s whose body ends at a
// word boundary.
func boundedAll(re *regexp.Regexp, s string) [][]int {
	body := re.SubexpIndex("body")
	var out [][]int
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

func overlaps(taken []span, start, end int) bool {
	for _, t := range taken {
		if start < t.end && t.start < end {
			return true
		}
	}
	return false
}

// futureDateRules are the retrieval date rules whose days make sense for a
// reminder; the others (weekdays, "last week", "ago" …) look backwards.
func futureDateRule(name string) (explicit, ok bool) {
	switch name {
	case "iso_date", "en_slash_date", "de_dot_date", "de_day_month", "en_month_day", "en_day_month":
		return true, true
	case "en_today", "en_tomorrow", "de_heute", "de_uebermorgen":
		return false, true
	}
	return false, false
}

// findTimes returns the time expressions of s in order of position.
func (p *Parser) findTimes(s string, now time.Time) []span {
	var taken []span
	for _, tm := range p.times {
		body := tm.re.SubexpIndex("body")
		for _, m := range boundedAll(tm.re, s) {
			start, end := m[2*body], m[2*body+1]
			if overlaps(taken, start, end) {
				continue
			}
			re := tm.re
			group := func(names ...string) string {
				for _, n := range names {
					if i := re.SubexpIndex(n); i >= 0 && m[2*i] >= 0 {
						return strings.ToLower(s[m[2*i]:m[2*i+1]])
					}
				}
				return ""
			}
			taken = append(taken, span{start: start, end: end, rule: tm.rule, group: group})
		}
	}
	lower := strings.ToLower(s)
	for _, ref := range retrieval.Classify(s, now).Dates {
		if _, ok := futureDateRule(ref.Rule); !ok {
			continue
		}
		i := strings.Index(lower, ref.Text)
		if i < 0 || len(lower) != len(s) || overlaps(taken, i, i+len(ref.Text)) {
			continue // overlapping one of ours, or not locatable in s
		}
		r := ref
		taken = append(taken, span{start: i, end: i + len(ref.Text), date: &r})
	}
	slices.SortFunc(taken, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	return taken
}

// resolved collects what the time expressions say.
type resolved struct {
	exact     time.Time // set by "in N minutes/hours"
	day       time.Time // start of the due day
	clockH    int       // −1 until a clock time or part of day is known
	clockM    int
	fromClock bool // clockH came from a clock time (beats a part of day)
	keepNow   bool // "in N days": default to now's time of day
	ignored   bool // a past expression was seen
}

func (p *Parser) setPart(r *resolved, hour int) {
	if !r.fromClock && r.clockH < 0 {
		r.clockH, r.clockM = hour, 0
	}
}

func (p *Parser) setDay(r *resolved, d time.Time) {
	if r.day.IsZero() {
		r.day = d
	}
}

func addDays(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d+n, 0, 0, 0, 0, t.Location())
}

// resolve turns the spans into a due time; ok is false when they do not
// name one.
func (p *Parser) resolve(spans []span, now time.Time) (time.Time, bool, error) {
	r := resolved{clockH: -1}
	today := addDays(now, 0)
	for _, sp := range spans {
		if sp.date != nil {
			explicit, _ := futureDateRule(sp.date.Rule)
			d := sp.date.Range.From
			if explicit && d.Before(today) {
				if p.yearRe.MatchString(sp.date.Text) {
					return time.Time{}, false, wrapf(ErrNotIntention, "date %q lies in the past", sp.date.Text)
				}
				d = d.AddDate(1, 0, 0)
			}
			p.setDay(&r, d)
			continue
		}
		g := sp.group
		switch sp.rule.Kind {
		case TimeIgnore:
			r.ignored = true
		case TimeIn:
			n, unit := 0, ""
			if sp.rule.Minutes > 0 {
				n, unit = sp.rule.Minutes, "minute"
			} else {
				var ok bool
				if n, ok = p.count(g("n")); !ok {
					continue
				}
				unit = p.vocab.units[g("unit")]
			}
			switch unit {
			case "minute", "hour":
				if r.exact.IsZero() {
					d := time.Duration(n) * time.Minute
					if unit == "hour" {
						d = time.Duration(n) * time.Hour
					}
					r.exact = now.Add(d)
				}
			case "day", "week", "month":
				if r.day.IsZero() {
					switch unit {
					case "day":
						r.day = addDays(now, n)
					case "week":
						r.day = addDays(now, 7*n)
					default:
						y, m, d := now.Date()
						r.day = time.Date(y, m+time.Month(n), d, 0, 0, 0, 0, now.Location())
					}
					r.keepNow = true
				}
			}
		case TimeDay:
			p.setDay(&r, addDays(now, sp.rule.Days))
		case TimeDayPart:
			days, hour := sp.rule.Days, sp.rule.Hour
			if d := g("day"); d != "" {
				days = p.vocab.days[d]
			}
			if pt := g("part"); pt != "" {
				hour = p.vocab.parts[pt]
			}
			p.setDay(&r, addDays(now, days))
			p.setPart(&r, hour)
		case TimeWeekday:
			want, ok := p.vocab.weekdays[g("wd")]
			if !ok {
				continue
			}
			ahead := (want - int(now.Weekday()) + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			p.setDay(&r, addDays(now, ahead))
			if pt := g("part"); pt != "" {
				p.setPart(&r, p.vocab.parts[pt])
			}
		case TimeNext:
			if u := g("unit"); u == "month" || u == "monat" {
				y, m, _ := now.Date()
				p.setDay(&r, time.Date(y, m+1, 1, 0, 0, 0, 0, now.Location()))
			} else {
				toMonday := (8 - int(now.Weekday())) % 7
				if toMonday == 0 {
					toMonday = 7
				}
				p.setDay(&r, addDays(now, toMonday))
			}
		case TimeClock:
			h, err := strconv.Atoi(g("h"))
			if err != nil {
				continue
			}
			m := 0
			if ms := g("min"); ms != "" {
				if m, err = strconv.Atoi(ms); err != nil || m > 59 {
					continue
				}
			}
			switch strings.ReplaceAll(g("ampm"), ".", "") {
			case "am":
				if h < 1 || h > 12 {
					continue
				}
				h %= 12
			case "pm":
				if h < 1 || h > 12 {
					continue
				}
				h = h%12 + 12
			}
			if h > 23 || r.fromClock {
				continue
			}
			r.clockH, r.clockM, r.fromClock = h, m, true
		case TimePart:
			hour := sp.rule.Hour
			if pt := g("part", "part2", "part3", "part4"); pt != "" {
				hour = p.vocab.parts[pt]
			}
			p.setPart(&r, hour)
		}
	}
	loc := now.Location()
	switch {
	case !r.exact.IsZero():
		return r.exact, true, nil
	case !r.day.IsZero():
		h, m := p.cfg.DefaultHour, 0
		switch {
		case r.clockH >= 0:
			h, m = r.clockH, r.clockM
		case r.keepNow:
			h, m = now.Hour(), now.Minute()
		}
		y, mo, d := r.day.Date()
		return time.Date(y, mo, d, h, m, 0, 0, loc), true, nil
	case r.clockH >= 0:
		y, mo, d := now.Date()
		due := time.Date(y, mo, d, r.clockH, r.clockM, 0, 0, loc)
		if !due.After(now) {
			due = time.Date(y, mo, d+1, r.clockH, r.clockM, 0, 0, loc)
		}
		return due, true, nil
	}
	if r.ignored {
		return time.Time{}, false, wrapf(ErrNotIntention, "the only time named lies in the past")
	}
	return time.Time{}, false, nil
}

func (p *Parser) count(s string) (int, bool) {
	if n, ok := p.vocab.numbers[s]; ok {
		return n, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 9999 {
		return 0, false
	}
	return n, true
}

// priority reads the priority markers of s (whole words; low first).
func (p *Parser) priority(s string) Priority {
	switch {
	case len(boundedAll(p.lowRe, s)) > 0:
		return PriorityLow
	case len(boundedAll(p.urgentRe, s)) > 0:
		return PriorityHigh
	}
	return PriorityMedium
}

const edgePunct = " \t,.;:!?-–—\"'"

// trimWords strips connectors and priority markers from both ends of s.
func (p *Parser) trimWords(s string) string {
	lead := slices.Concat(p.words.leading, p.words.low, p.words.urgent)
	trail := slices.Concat(p.words.trailing, p.words.low, p.words.urgent)
	for changed := true; changed; {
		changed = false
		s = strings.Trim(s, edgePunct)
		for _, w := range lead {
			if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) && strings.ContainsRune(edgePunct, rune(s[len(w)])) {
				s, changed = strings.Trim(s[len(w):], edgePunct), true
			}
		}
		for _, w := range trail {
			if n := len(s) - len(w); n > 0 && strings.EqualFold(s[n:], w) && strings.ContainsRune(edgePunct, rune(s[n-1])) {
				s, changed = strings.Trim(s[:n], edgePunct), true
			}
		}
	}
	return s
}

// stripReminder removes a leading reminder phrase from s, if any.
func (p *Parser) stripReminder(s string) (string, *ReminderForm) {
	for i, rm := range p.reminders {
		if m := rm.re.FindStringSubmatch(s); m != nil {
			return m[rm.re.SubexpIndex("rest")], &p.reminders[i].form
		}
	}
	return s, nil
}

// Parse turns text into a pending intention created at now, in now's
// location:
//
//  1. The cue forms ([DefaultCueForms]) are tried first; a match gives a
//     cue intention with Cue (and CueEntities for person forms), content
//     without any reminder phrase, and ExpiresAt = now + CueTTL.
//  2. Otherwise the text must start with a reminder phrase
//     ([DefaultReminderForms]). The time expressions of the rest
//     ([DefaultTimeRules] and the retrieval package's explicit dates and
//     today/tomorrow words) give DueAt: an exact instant for "in N
//     minutes/hours"; otherwise the named day (the first one named) at the
//     clock time, else at the part of day, else at DefaultHour (9:00); a
//     clock time alone means today, or tomorrow once it has passed.
//     ExpiresAt = DueAt + TimeGrace.
//  3. The content is the rest without the time expressions, connectors
//     ("to", "an", "daran" …) and priority markers at its ends.
//
// Priority is high when the text says urgent/important/asap/dringend/
// wichtig/eilig, low for "low priority"/"no rush"/"nicht dringend"/"keine
// Eile", otherwise medium. Parse returns an error wrapping [ErrInvalidInput]
// for empty text or text longer than [MaxParseBytes], and [ErrNotIntention]
// when no form matches, no time is named, the due time has passed, or no
// content is left.
func (p *Parser) Parse(text string, now time.Time) (Intention, error) {
	if len(text) > MaxParseBytes {
		return Intention{}, wrapf(ErrInvalidInput, "text has %d bytes, more than %d", len(text), MaxParseBytes)
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	s := strings.TrimRight(strings.Join(strings.Fields(text), " "), ".!")
	s = strings.TrimSpace(s)
	if s == "" {
		return Intention{}, wrapf(ErrInvalidInput, "text is empty")
	}
	in := Intention{Status: StatusPending, CreatedAt: now, Priority: p.priority(s)}

	for _, cm := range p.cues {
		m := cm.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		cue := p.trimWords(m[cm.re.SubexpIndex("cue")])
		content, _ := p.stripReminder(strings.Trim(m[cm.re.SubexpIndex("content")], edgePunct))
		content = p.trimWords(content)
		if cue == "" || content == "" {
			continue
		}
		in.Trigger, in.Cue, in.Content, in.Lang = TriggerCue, cue, content, cm.form.Lang
		if cm.form.Entity {
			in.CueEntities = []string{cue}
		}
		if p.cfg.CueTTL > 0 {
			in.ExpiresAt = now.Add(p.cfg.CueTTL)
		}
		return in, in.Validate()
	}

	rest, form := p.stripReminder(s)
	if form == nil {
		return Intention{}, wrapf(ErrNotIntention, "no reminder or cue form matches %q", s)
	}
	spans := p.findTimes(rest, now)
	due, ok, err := p.resolve(spans, now)
	if err != nil {
		return Intention{}, err
	}
	if !ok {
		return Intention{}, wrapf(ErrNotIntention, "no time or cue found in %q", s)
	}
	if !due.After(now) {
		return Intention{}, wrapf(ErrNotIntention, "due time %v is not after now %v", due, now)
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(rest[last:sp.start])
		b.WriteString(" ")
		last = sp.end
	}
	b.WriteString(rest[last:])
	content := p.trimWords(strings.Join(strings.Fields(b.String()), " "))
	if content == "" {
		return Intention{}, wrapf(ErrNotIntention, "no content left in %q", s)
	}
	in.Trigger, in.DueAt, in.Content, in.Lang = TriggerTime, due, content, form.Lang
	if p.cfg.TimeGrace > 0 {
		in.ExpiresAt = due.Add(p.cfg.TimeGrace)
	}
	return in, in.Validate()
}
