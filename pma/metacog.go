package pma

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Defaults of [MetacogConfig].
const (
	// MetacogWindowDefault is the window of the acceptance and recall logs.
	MetacogWindowDefault = 30 * 24 * time.Hour
	// MetacogRecentDefault separates recent from older memories and
	// recalls.
	MetacogRecentDefault = 7 * 24 * time.Hour
	// MetacogBiasAlertDefault is the bias above which an alert is raised.
	MetacogBiasAlertDefault = 0.15
	// MetacogAlertZDefault is the one-sided z score a bias alert also needs
	// (1.645: significant at 5 %).
	MetacogAlertZDefault = 1.645
	// MetacogMinSamplesDefault is the least number of observations in each
	// compared group before a bias alert can be raised.
	MetacogMinSamplesDefault = 5
	// MetacogNoveltyPEDefault is the prediction error above which a novelty
	// window opens.
	MetacogNoveltyPEDefault = 0.7
	// MetacogNoveltyWindowDefault is how long a novelty window stays open.
	MetacogNoveltyWindowDefault = 10 * time.Minute
	// MetacogNoveltyBoostDefault is the encoding boost at the opening of a
	// novelty window; it falls linearly to 0 at its end.
	MetacogNoveltyBoostDefault = 0.2
	// MetacogUrgencyWindowDefault is how far back messages count for
	// urgency.
	MetacogUrgencyWindowDefault = 15 * time.Minute
	// MetacogUrgencyRateCapDefault is the message rate (per minute) at which
	// the frequency component of urgency saturates.
	MetacogUrgencyRateCapDefault = 6.0
	// MetacogBrevityCharsDefault is the mean message length (in characters)
	// below which brevity adds to urgency.
	MetacogBrevityCharsDefault = 50.0
	// MetacogEncodingBoostDefault scales urgency into an encoding boost.
	MetacogEncodingBoostDefault = 0.2
)

// FeedbackKind classifies a suggestion the user accepted or rejected.
type FeedbackKind string

// The feedback kinds.
const (
	// FeedbackPositive is a suggestion with positive valence.
	FeedbackPositive FeedbackKind = "positive"
	// FeedbackNegative is a suggestion with negative valence.
	FeedbackNegative FeedbackKind = "negative"
	// FeedbackConfirming is information that agrees with stored beliefs.
	FeedbackConfirming FeedbackKind = "confirming"
	// FeedbackContradicting is information that contradicts stored beliefs.
	FeedbackContradicting FeedbackKind = "contradicting"
)

// Feedback is one entry of the acceptance log.
type Feedback struct {
	// At is when the user reacted.
	At time.Time `json:"at"`
	// Kind classifies the suggestion.
	Kind FeedbackKind `json:"kind"`
	// Accepted is true when the user accepted it.
	Accepted bool `json:"accepted"`
}

// RecallResult is one memory returned by a recall.
type RecallResult struct {
	// MemoryID identifies the memory.
	MemoryID string `json:"memory_id"`
	// AgeDays is the memory's age in days at recall time.
	AgeDays float64 `json:"age_days"`
	// Confidence in [0, 1] is the confidence the recall reported.
	Confidence float64 `json:"confidence"`
	// Used is true when the result was used (cited, accepted, clicked).
	Used bool `json:"used"`
}

// RecallEvent is one recall with its results.
type RecallEvent struct {
	// At is when the recall happened.
	At time.Time `json:"at"`
	// Query is the recall's query text.
	Query string `json:"query"`
	// Results are the returned memories.
	Results []RecallResult `json:"results"`
	// Success is true when the recall served its purpose.
	Success bool `json:"success"`
}

// Message is one user message, for urgency.
type Message struct {
	// At is when the message arrived.
	At time.Time `json:"at"`
	// Text is the message text.
	Text string `json:"text"`
}

// PEObservation is one prediction error (from reconsolidation or review),
// for novelty windows.
type PEObservation struct {
	// At is when the prediction error was observed.
	At time.Time `json:"at"`
	// PE in [0, 1] is the prediction error.
	PE float64 `json:"pe"`
}

// MetacogInput holds the logs the monitor reads. Entries older than the
// 30-day window or later than now are ignored.
type MetacogInput struct {
	// Feedback is the acceptance log.
	Feedback []Feedback
	// Recalls is the recall log.
	Recalls []RecallEvent
	// Messages are recent user messages.
	Messages []Message
	// PredictionErrors are recent prediction errors.
	PredictionErrors []PEObservation
}

// Signals are the monitor's outputs, all plain numbers for the HyperAgent.
// A signal without data is 0.
type Signals struct {
	// ConfirmationBias is acceptance(confirming) − acceptance(contradicting),
	// in [−1, 1]; positive means beliefs are protected from contrary evidence.
	ConfirmationBias float64 `json:"confirmation_bias"`
	// Asymmetry is |acceptance(positive) − acceptance(negative)| in [0, 1].
	Asymmetry float64 `json:"asymmetry"`
	// RecencyBias is the share of recent (< 7 days) memories among returned
	// results minus their share among used results, in [−1, 1]; positive
	// means recall favours recent memories more than their usefulness
	// warrants, negative that it favours old ones.
	RecencyBias float64 `json:"recency_bias"`
	// RetrievalEfficiency is used results / returned results over the window.
	RetrievalEfficiency float64 `json:"retrieval_efficiency"`
	// EfficiencyTrend is the efficiency of the last 7 days minus that of the
	// older part of the window (0 when either has no results).
	EfficiencyTrend float64 `json:"efficiency_trend"`
	// RecallSuccessRate is the share of successful recalls over the window.
	RecallSuccessRate float64 `json:"recall_success_rate"`
	// CalibrationError is the mean reported confidence of returned results
	// minus RetrievalEfficiency; positive means overconfident.
	CalibrationError float64 `json:"calibration_error"`
	// Urgency in [0, 1] is 0.4·rate + 0.35·keywords + 0.25·brevity over the
	// recent messages (see [MetacognitiveMonitor.Urgency]).
	Urgency float64 `json:"urgency"`
	// EncodingBoost is 0.2·Urgency, added to the priority of memories
	// stored under urgency.
	EncodingBoost float64 `json:"encoding_boost"`
	// NoveltyBoost is 0.2·(1 − elapsed/10 min) inside a novelty window, else 0.
	NoveltyBoost float64 `json:"novelty_boost"`
}

// Alert kinds.
const (
	// AlertConfirmationBias flags a confirmation bias.
	AlertConfirmationBias = "confirmation_bias"
	// AlertAsymmetry flags an acceptance asymmetry between positive and
	// negative suggestions.
	AlertAsymmetry = "asymmetry"
	// AlertRecencyBias flags a recency (or antiquity) bias of recall.
	AlertRecencyBias = "recency_bias"
)

// Alert is a bias the monitor is confident about.
type Alert struct {
	// Kind is one of the Alert constants.
	Kind string `json:"kind"`
	// Value is the bias.
	Value float64 `json:"value"`
	// Threshold is the bias threshold it exceeded.
	Threshold float64 `json:"threshold"`
	// Z is the two-proportion z score behind it.
	Z float64 `json:"z"`
	// Message explains the alert in English.
	Message string `json:"message"`
}

// Assessment is the monitor's result for one point in time.
type Assessment struct {
	// Signals are the numbers for the HyperAgent.
	Signals Signals `json:"signals"`
	// Alerts are the biases that exceed the threshold with significance.
	Alerts []Alert `json:"alerts,omitempty"`
}

// MetacogConfig holds the parameters of a [MetacognitiveMonitor]. A zero field
// takes its default.
type MetacogConfig struct {
	// Window is the log window. Defaults to [MetacogWindowDefault] (30 d).
	Window time.Duration
	// Recent is the recency split. Defaults to [MetacogRecentDefault] (7 d).
	Recent time.Duration
	// BiasAlert is the alert threshold. Defaults to
	// [MetacogBiasAlertDefault] (0.15).
	BiasAlert float64
	// AlertZ is the z score an alert needs. Defaults to
	// [MetacogAlertZDefault] (1.645).
	AlertZ float64
	// MinSamples is the least group size for an alert. Defaults to
	// [MetacogMinSamplesDefault] (5).
	MinSamples int
	// NoveltyPE is the novelty threshold. Defaults to
	// [MetacogNoveltyPEDefault] (0.7).
	NoveltyPE float64
	// NoveltyWindow is the novelty window. Defaults to
	// [MetacogNoveltyWindowDefault] (10 min).
	NoveltyWindow time.Duration
	// NoveltyBoost is the boost at a window's start. Defaults to
	// [MetacogNoveltyBoostDefault] (0.2).
	NoveltyBoost float64
	// UrgencyWindow is the message window for urgency. Defaults to
	// [MetacogUrgencyWindowDefault] (15 min).
	UrgencyWindow time.Duration
	// UrgencyRateCap is the saturating message rate per minute. Defaults to
	// [MetacogUrgencyRateCapDefault] (6).
	UrgencyRateCap float64
	// BrevityChars is the brevity length. Defaults to
	// [MetacogBrevityCharsDefault] (50).
	BrevityChars float64
	// EncodingBoost scales urgency into an encoding boost. Defaults to
	// [MetacogEncodingBoostDefault] (0.2).
	EncodingBoost float64
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *MetacogConfig) WithDefaults() *MetacogConfig {
	if c == nil {
		c = &MetacogConfig{}
	}
	return &MetacogConfig{
		Window:         cmp.Or(c.Window, MetacogWindowDefault),
		Recent:         cmp.Or(c.Recent, MetacogRecentDefault),
		BiasAlert:      cmp.Or(c.BiasAlert, MetacogBiasAlertDefault),
		AlertZ:         cmp.Or(c.AlertZ, MetacogAlertZDefault),
		MinSamples:     cmp.Or(c.MinSamples, MetacogMinSamplesDefault),
		NoveltyPE:      cmp.Or(c.NoveltyPE, MetacogNoveltyPEDefault),
		NoveltyWindow:  cmp.Or(c.NoveltyWindow, MetacogNoveltyWindowDefault),
		NoveltyBoost:   cmp.Or(c.NoveltyBoost, MetacogNoveltyBoostDefault),
		UrgencyWindow:  cmp.Or(c.UrgencyWindow, MetacogUrgencyWindowDefault),
		UrgencyRateCap: cmp.Or(c.UrgencyRateCap, MetacogUrgencyRateCapDefault),
		BrevityChars:   cmp.Or(c.BrevityChars, MetacogBrevityCharsDefault),
		EncodingBoost:  cmp.Or(c.EncodingBoost, MetacogEncodingBoostDefault),
	}
}

func (c *MetacogConfig) validate() error {
	switch {
	case c.Window <= 0 || c.Recent <= 0 || c.Recent >= c.Window:
		return invalidf("MetacogConfig needs 0 < Recent < Window, got %v and %v", c.Recent, c.Window)
	case !finite(c.BiasAlert) || c.BiasAlert <= 0 || c.BiasAlert >= 1:
		return invalidf("MetacogConfig.BiasAlert must be in (0, 1), got %v", c.BiasAlert)
	case !finite(c.AlertZ) || c.AlertZ < 0:
		return invalidf("MetacogConfig.AlertZ must be non-negative, got %v", c.AlertZ)
	case c.MinSamples < 1:
		return invalidf("MetacogConfig.MinSamples must be at least 1, got %d", c.MinSamples)
	case !finite(c.NoveltyPE) || c.NoveltyPE <= 0 || c.NoveltyPE >= 1:
		return invalidf("MetacogConfig.NoveltyPE must be in (0, 1), got %v", c.NoveltyPE)
	case c.NoveltyWindow <= 0 || c.UrgencyWindow <= 0:
		return invalidf("MetacogConfig.NoveltyWindow and UrgencyWindow must be positive")
	case !finite(c.NoveltyBoost) || c.NoveltyBoost <= 0 || c.NoveltyBoost > 1:
		return invalidf("MetacogConfig.NoveltyBoost must be in (0, 1], got %v", c.NoveltyBoost)
	case !finite(c.UrgencyRateCap) || c.UrgencyRateCap <= 0:
		return invalidf("MetacogConfig.UrgencyRateCap must be positive, got %v", c.UrgencyRateCap)
	case !finite(c.BrevityChars) || c.BrevityChars <= 0:
		return invalidf("MetacogConfig.BrevityChars must be positive, got %v", c.BrevityChars)
	case !finite(c.EncodingBoost) || c.EncodingBoost <= 0 || c.EncodingBoost > 1:
		return invalidf("MetacogConfig.EncodingBoost must be in (0, 1], got %v", c.EncodingBoost)
	}
	return nil
}

// MetacognitiveMonitor watches the memory system's own behaviour. It holds
// only its configuration and is safe for concurrent use; the logs it reads
// are passed in (the worker keeps them in `metacog_event`).
type MetacognitiveMonitor struct {
	cfg MetacogConfig
}

// NewMetacognitiveMonitor returns a monitor with cfg (nil means all
// defaults).
func NewMetacognitiveMonitor(cfg *MetacogConfig) (*MetacognitiveMonitor, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &MetacognitiveMonitor{cfg: *c}, nil
}

// proportion counts successes k out of n.
type proportion struct{ k, n int }

func (p *proportion) add(ok bool) {
	p.n++
	if ok {
		p.k++
	}
}

func (p proportion) rate() float64 {
	if p.n == 0 {
		return 0
	}
	return float64(p.k) / float64(p.n)
}

// twoProportionZ returns (rate(a) − rate(b)) / pooled standard error, 0 when
// a group is empty or the pooled rate is 0 or 1.
func twoProportionZ(a, b proportion) float64 {
	if a.n == 0 || b.n == 0 {
		return 0
	}
	p := float64(a.k+b.k) / float64(a.n+b.n)
	se := math.Sqrt(p * (1 - p) * (1/float64(a.n) + 1/float64(b.n)))
	if se == 0 {
		return 0
	}
	return (a.rate() - b.rate()) / se
}

func (m *MetacognitiveMonitor) inWindow(at, now time.Time) bool {
	return !at.After(now) && now.Sub(at) <= m.cfg.Window
}

// Assess computes the signals and alerts at now from in:
//
//   - ConfirmationBias and Asymmetry from the acceptance rates of the
//     feedback kinds;
//   - RecencyBias, RetrievalEfficiency, EfficiencyTrend, RecallSuccessRate
//     and CalibrationError from the recall log;
//   - Urgency and EncodingBoost from the messages ([MetacognitiveMonitor.Urgency]);
//   - NoveltyBoost from the prediction errors ([MetacognitiveMonitor.NoveltyBoost]).
//
// A bias alert is raised when the bias exceeds 0.15, each compared group
// has at least 5 observations and the two-proportion z score reaches 1.645
// (so 30 coin-flip observations do not raise alerts by chance). Invalid
// entries (unknown kinds, NaN or out-of-range numbers) return an error naming
// the entry.
func (m *MetacognitiveMonitor) Assess(in MetacogInput, now time.Time) (Assessment, error) {
	var out Assessment
	var pos, neg, conf, contra proportion
	for i, f := range in.Feedback {
		if !m.inWindow(f.At, now) {
			continue
		}
		switch f.Kind {
		case FeedbackPositive:
			pos.add(f.Accepted)
		case FeedbackNegative:
			neg.add(f.Accepted)
		case FeedbackConfirming:
			conf.add(f.Accepted)
		case FeedbackContradicting:
			contra.add(f.Accepted)
		default:
			return Assessment{}, invalidf("feedback %d has unknown kind %q", i, f.Kind)
		}
	}
	s := &out.Signals
	if conf.n > 0 && contra.n > 0 {
		s.ConfirmationBias = conf.rate() - contra.rate()
	}
	if pos.n > 0 && neg.n > 0 {
		s.Asymmetry = math.Abs(pos.rate() - neg.rate())
	}
	out.Alerts = append(out.Alerts, m.alert(AlertConfirmationBias, s.ConfirmationBias, conf, contra,
		"accepts confirming information more readily than contradicting information")...)
	zPos := twoProportionZ(pos, neg)
	if zPos < 0 {
		out.Alerts = append(out.Alerts, m.alert(AlertAsymmetry, s.Asymmetry, neg, pos,
			"accepts negative suggestions more readily than positive ones")...)
	} else {
		out.Alerts = append(out.Alerts, m.alert(AlertAsymmetry, s.Asymmetry, pos, neg,
			"accepts positive suggestions more readily than negative ones")...)
	}

	// Recall log.
	var recent, older proportion       // used among returned, by memory age
	var effRecent, effOlder proportion // used among returned, by recall time
	var success proportion
	confSum := 0.0
	for i, r := range in.Recalls {
		if !m.inWindow(r.At, now) {
			continue
		}
		success.add(r.Success)
		for j, res := range r.Results {
			if !finite(res.AgeDays) || res.AgeDays < 0 {
				return Assessment{}, invalidf("recall %d result %d has age %v days", i, j, res.AgeDays)
			}
			if err := checkUnit(fmt.Sprintf("recall %d result %d confidence", i, j), res.Confidence); err != nil {
				return Assessment{}, err
			}
			confSum += res.Confidence
			if res.AgeDays < days(m.cfg.Recent) {
				recent.add(res.Used)
			} else {
				older.add(res.Used)
			}
			if now.Sub(r.At) < m.cfg.Recent {
				effRecent.add(res.Used)
			} else {
				effOlder.add(res.Used)
			}
		}
	}
	returned := recent.n + older.n
	used := recent.k + older.k
	if returned > 0 {
		s.RetrievalEfficiency = float64(used) / float64(returned)
		s.CalibrationError = confSum/float64(returned) - s.RetrievalEfficiency
	}
	if used > 0 {
		s.RecencyBias = float64(recent.n)/float64(returned) - float64(recent.k)/float64(used)
	}
	if effRecent.n > 0 && effOlder.n > 0 {
		s.EfficiencyTrend = effRecent.rate() - effOlder.rate()
	}
	s.RecallSuccessRate = success.rate()
	// A positive recency bias means recent results are used less often than
	// older ones, so compare older against recent precision (and vice versa).
	if s.RecencyBias >= 0 {
		out.Alerts = append(out.Alerts, m.alert(AlertRecencyBias, s.RecencyBias, older, recent,
			"returns recent memories more often than they prove useful")...)
	} else {
		out.Alerts = append(out.Alerts, m.alert(AlertRecencyBias, -s.RecencyBias, recent, older,
			"returns old memories more often than they prove useful")...)
	}

	u, err := m.Urgency(in.Messages, now)
	if err != nil {
		return Assessment{}, err
	}
	s.Urgency = u
	s.EncodingBoost = m.cfg.EncodingBoost * u
	nb, err := m.NoveltyBoost(in.PredictionErrors, now)
	if err != nil {
		return Assessment{}, err
	}
	s.NoveltyBoost = nb
	return out, nil
}

// alert returns an alert when value exceeds the threshold, both groups are
// large enough and rate(hi) − rate(lo) is significant.
func (m *MetacognitiveMonitor) alert(kind string, value float64, hi, lo proportion, msg string) []Alert {
	if value <= m.cfg.BiasAlert || hi.n < m.cfg.MinSamples || lo.n < m.cfg.MinSamples {
		return nil
	}
	z := twoProportionZ(hi, lo)
	if z < m.cfg.AlertZ {
		return nil
	}
	return []Alert{{
		Kind: kind, Value: value, Threshold: m.cfg.BiasAlert, Z: z,
		Message: fmt.Sprintf("%s: the memory system %s (%.2f > %.2f, z = %.2f)", kind, msg, value, m.cfg.BiasAlert, z),
	}}
}

// urgencyCues are English and German urgency phrases, matched as whole words
// on lower-cased text with punctuation turned into spaces.
var urgencyCues = []string{
	// English.
	"urgent", "urgently", "asap", "as soon as possible", "immediately", "right away", "right now",
	"deadline", "deadlines", "emergency", "by tomorrow", "by today", "by tonight", "by end of day",
	"end of day", "eod", "no later than", "hurry", "time sensitive", "top priority", "critical",
	// German.
	"dringend", "dringende", "dringender", "dringendes", "dringlich", "eilig", "eilt", "sofort",
	"umgehend", "unverzüglich", "so schnell wie möglich", "schnellstmöglich", "bis morgen",
	"bis heute", "bis heute abend", "frist", "abgabefrist", "notfall", "höchste priorität",
	"zeitkritisch", "keine zeit",
}

// normalizeCueText lower-cases s (textproc.Normalize), turns every rune that
// is not a letter or digit into a space and pads the result with spaces, so
// cues can be matched as " cue ".
func normalizeCueText(s string) string {
	s = textproc.Normalize(s)
	var b strings.Builder
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

// UrgencyCues returns the urgency cues found in text (English and German:
// urgent, asap, deadline, immediately, by tomorrow, dringend, sofort, eilig,
// bis morgen, umgehend, Frist …), in the order of the cue list. Cues match
// whole words, so "urgency" or "Sofa" do not count.
func UrgencyCues(text string) []string {
	t := normalizeCueText(text)
	var out []string
	for _, c := range urgencyCues {
		if strings.Contains(t, " "+c+" ") {
			out = append(out, c)
		}
	}
	return out
}

// IsUrgent reports whether text contains at least one urgency cue.
func IsUrgent(text string) bool { return len(UrgencyCues(text)) > 0 }

// Urgency returns the urgency of the messages within the urgency window
// (15 minutes) before now:
//
//	urgency = 0.4·min(1, rate/6) + 0.35·min(1, cues/3) + 0.25·brevity
//
// where rate is messages per minute over their time span (at least one
// minute), cues the number of urgency cues over all messages, and brevity
// 1 − mean length/50 when the mean length in characters is below 50, else 0.
// No messages give 0; a zero message time returns an error.
func (m *MetacognitiveMonitor) Urgency(msgs []Message, now time.Time) (float64, error) {
	var first, last time.Time
	n, cues, chars := 0, 0, 0
	for i, msg := range msgs {
		if msg.At.IsZero() {
			return 0, invalidf("message %d has a zero time", i)
		}
		if msg.At.After(now) || now.Sub(msg.At) > m.cfg.UrgencyWindow {
			continue
		}
		if n == 0 || msg.At.Before(first) {
			first = msg.At
		}
		if n == 0 || msg.At.After(last) {
			last = msg.At
		}
		n++
		cues += len(UrgencyCues(msg.Text))
		chars += utf8.RuneCountInString(strings.TrimSpace(msg.Text))
	}
	if n == 0 {
		return 0, nil
	}
	span := math.Max(last.Sub(first).Minutes(), 1)
	rate := math.Min(1, float64(n)/span/m.cfg.UrgencyRateCap)
	kw := math.Min(1, float64(cues)/3)
	brev := 0.0
	if avg := float64(chars) / float64(n); avg < m.cfg.BrevityChars {
		brev = 1 - avg/m.cfg.BrevityChars
	}
	return clamp01(0.4*rate + 0.35*kw + 0.25*brev), nil
}

// NoveltyWindow is an open novelty window.
type NoveltyWindow struct {
	// OpenedAt is when the high prediction error was observed.
	OpenedAt time.Time `json:"opened_at"`
	// ClosesAt is OpenedAt + 10 minutes.
	ClosesAt time.Time `json:"closes_at"`
	// PE is the prediction error that opened it.
	PE float64 `json:"pe"`
}

// OpenNoveltyWindow returns the window a prediction error pe observed at
// `at` opens, and false when pe does not exceed the threshold (0.7).
func (m *MetacognitiveMonitor) OpenNoveltyWindow(pe float64, at time.Time) (NoveltyWindow, bool) {
	if !finite(pe) || pe <= m.cfg.NoveltyPE {
		return NoveltyWindow{}, false
	}
	return NoveltyWindow{OpenedAt: at, ClosesAt: at.Add(m.cfg.NoveltyWindow), PE: pe}, true
}

// Boost returns the window's encoding boost at now: 0.2·(1 − elapsed/10 min)
// inside the window, 0 outside.
func (m *MetacognitiveMonitor) Boost(w NoveltyWindow, now time.Time) float64 {
	if now.Before(w.OpenedAt) || !now.Before(w.ClosesAt) {
		return 0
	}
	frac := now.Sub(w.OpenedAt).Seconds() / w.ClosesAt.Sub(w.OpenedAt).Seconds()
	return m.cfg.NoveltyBoost * (1 - frac)
}

// NoveltyBoost returns the boost at now of the most recent novelty window
// opened by obs (a later high prediction error restarts the window). A PE
// outside [0, 1] or NaN returns an error.
func (m *MetacognitiveMonitor) NoveltyBoost(obs []PEObservation, now time.Time) (float64, error) {
	var latest NoveltyWindow
	found := false
	for i, o := range obs {
		if err := checkUnit(fmt.Sprintf("prediction error %d", i), o.PE); err != nil {
			return 0, err
		}
		if o.At.After(now) {
			continue
		}
		if w, ok := m.OpenNoveltyWindow(o.PE, o.At); ok && (!found || w.OpenedAt.After(latest.OpenedAt)) {
			latest, found = w, true
		}
	}
	if !found {
		return 0, nil
	}
	return m.Boost(latest, now), nil
}
