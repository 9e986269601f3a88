package coordinator

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// ExcerptNeighbours is how many lines on each side of an episode's best line its excerpt keeps:
// the turn before a matching line is often the question it answers, the turn after the answer
// to it.
const ExcerptNeighbours = 1

// lineKey is the form in which delivered lines are compared: white space collapsed.
func lineKey(s string) string { return strings.Join(strings.Fields(s), " ") }

// deliverResults turns ranked results (best first) into what recall delivers, at most k:
//
//   - nothing is delivered twice: a memory whose lines were all delivered by a better-ranked
//     result (a fact copied from a turn, a turn its episode already delivered) is left out;
//   - an episode (a memory of several lines that carries its turns) is delivered as its
//     best-matching line not yet delivered with ExcerptNeighbours lines on each side, in their
//     order (Result.Excerpt): the episode finds the region, the line is the evidence. A line's
//     match is the rank score of its own turn when that turn was a candidate (lineScore), else
//     the share of the query's terms it holds; lines of candidate turns come first.
//
// With whole set every result is delivered as it is, duplicates included (the ranking alone).
func deliverResults(results []Result, k int, queryTerms []string, lineScore map[string]float64, whole bool) []Result {
	if whole {
		return results[:min(k, len(results))]
	}
	qt := map[string]bool{}
	for _, t := range queryTerms {
		qt[t] = true
	}
	delivered := map[string]bool{}
	out := make([]Result, 0, min(k, len(results)))
	for _, r := range results {
		if len(out) == k {
			break
		}
		lines := strings.Split(r.Content, "\n")
		var fresh []int
		for i, l := range lines {
			if !delivered[lineKey(l)] {
				fresh = append(fresh, i)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		if r.Kind == "episode" && len(lines) > 1 {
			best, bestCand, bestScore := -1, false, 0.0
			for _, i := range fresh {
				s, cand := lineScore[lineKey(lines[i])]
				if !cand {
					s = termShare(lines[i], qt)
				}
				if best < 0 || (cand && !bestCand) || (cand == bestCand && s > bestScore) {
					best, bestCand, bestScore = i, cand, s
				}
			}
			var keep []string
			for i := max(0, best-ExcerptNeighbours); i <= min(len(lines)-1, best+ExcerptNeighbours); i++ {
				if !delivered[lineKey(lines[i])] {
					keep = append(keep, lines[i])
				}
			}
			if len(keep) < len(lines) {
				r.Content, r.Excerpt = strings.Join(keep, "\n"), true
			}
			lines = keep
		}
		for _, l := range lines {
			delivered[lineKey(l)] = true
		}
		out = append(out, r)
	}
	return out
}

// termShare is the share of the query's terms that line holds (0 for a query without terms).
func termShare(line string, qt map[string]bool) float64 {
	if len(qt) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for _, t := range textproc.Terms(line, textproc.DetectLang(line)) {
		if qt[t] {
			seen[t] = true
		}
	}
	return float64(len(seen)) / float64(len(qt))
}

// DateFormat is how delivered memories state their dates (ISO 8601 calendar dates: short and
// unambiguous in any language).
const DateFormat = "2006-01-02"

// ResolvedDate is a date expression of a memory's text with the dates it means, resolved
// against the time the memory was stored.
type ResolvedDate struct {
	// Text is the expression as written ("yesterday", "last week").
	Text string `json:"text"`
	// From and To bound what it means (To exclusive).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// String renders the expression with its dates: "yesterday = 2023-05-07",
// "last week = 2023-05-01..2023-05-07".
func (d ResolvedDate) String() string {
	return d.Text + " = " + dateSpan(d.From, d.To.Add(-time.Nanosecond))
}

// dateSpan renders a day or a span of days.
func dateSpan(from, to time.Time) string {
	f, t := from.UTC().Format(DateFormat), to.UTC().Format(DateFormat)
	if !to.After(from) || f == t {
		return f
	}
	return f + ".." + t
}

// resolvedDates reads the resolved date expressions the store recorded in a memory's metadata.
func resolvedDates(md json.RawMessage) []ResolvedDate {
	if len(md) == 0 {
		return nil
	}
	var m struct {
		Dates []struct {
			Text string `json:"text"`
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"resolved_dates"`
	}
	if json.Unmarshal(md, &m) != nil {
		return nil
	}
	var out []ResolvedDate
	for _, d := range m.Dates {
		from, err1 := time.Parse(time.RFC3339, d.From)
		to, err2 := time.Parse(time.RFC3339, d.To)
		if d.Text != "" && err1 == nil && err2 == nil && to.After(from) {
			out = append(out, ResolvedDate{Text: d.Text, From: from, To: to})
		}
	}
	return out
}

// whenOf renders when a memory happened: its event span (an episode's first to last turn),
// else its occurred_at, else when it was stored.
func whenOf(eventFrom, eventTo, occurred *time.Time, created time.Time) string {
	switch {
	case eventFrom != nil && eventTo != nil:
		return dateSpan(*eventFrom, *eventTo)
	case occurred != nil:
		return occurred.UTC().Format(DateFormat)
	}
	return created.UTC().Format(DateFormat)
}

// Line renders a delivered memory as an agent reads it: "[when] content", and after it the
// date expressions of the text resolved ("(yesterday = 2023-05-07)"). The content itself is
// never altered, so a quote of it stays a quote.
func (r *Result) Line() string {
	var b strings.Builder
	if r.When != "" {
		b.WriteString("[" + r.When + "] ")
	}
	b.WriteString(r.Content)
	if len(r.Dates) > 0 {
		parts := make([]string, 0, len(r.Dates))
		for _, d := range r.Dates {
			if strings.Contains(r.Content, d.Text) {
				parts = append(parts, d.String())
			}
		}
		if len(parts) > 0 {
			b.WriteString(" (" + strings.Join(parts, "; ") + ")")
		}
	}
	return b.String()
}
