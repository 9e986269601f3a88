package prospective

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Errors returned by this package. Every error wraps exactly one of them.
var (
	// ErrInvalidInput marks bad input: empty text, NaN or infinite numbers,
	// mismatched embedding dimensions, unknown enum values, inconsistent
	// times.
	ErrInvalidInput = errors.New("prospective: invalid input")
	// ErrTransition marks a state transition the lifecycle does not allow.
	ErrTransition = errors.New("prospective: invalid transition")
	// ErrNotIntention marks text that [Parser.Parse] does not recognize as
	// an intention, or whose trigger or content it cannot find.
	ErrNotIntention = errors.New("prospective: not an intention")
)

func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), sentinel)
}

// Trigger is what makes an intention fire.
type Trigger string

// The trigger types.
const (
	// TriggerTime fires when the intention's DueAt has come (the worker
	// schedules it).
	TriggerTime Trigger = "time"
	// TriggerCue fires when stored or recalled text matches the cue by
	// entity, keyword or embedding ([MatchCue]).
	TriggerCue Trigger = "cue"
)

// Valid reports whether t is a known trigger.
func (t Trigger) Valid() bool { return t == TriggerTime || t == TriggerCue }

// Status is an intention's lifecycle state.
type Status string

// The lifecycle states. Pending is the only initial state; fired and
// dismissed are terminal; expired may still be dismissed.
const (
	// StatusPending waits for its trigger.
	StatusPending Status = "pending"
	// StatusFired has been surfaced to the user (terminal).
	StatusFired Status = "fired"
	// StatusDismissed was dropped by the user (terminal).
	StatusDismissed Status = "dismissed"
	// StatusExpired passed its ExpiresAt without firing.
	StatusExpired Status = "expired"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusFired, StatusDismissed, StatusExpired:
		return true
	}
	return false
}

// CanTransition reports whether the lifecycle allows from → to:
// pending → fired, pending → dismissed, pending → expired and
// expired → dismissed. Everything else, including staying in place, is
// refused.
func CanTransition(from, to Status) bool {
	switch from {
	case StatusPending:
		return to == StatusFired || to == StatusDismissed || to == StatusExpired
	case StatusExpired:
		return to == StatusDismissed
	}
	return false
}

// Priority orders intentions that are due together. Unlike the reference,
// which sorted the text labels alphabetically (so "medium" came before
// "high"), priorities are ordered numbers.
type Priority int

// The priorities.
const (
	// PriorityLow is for nice-to-have reminders.
	PriorityLow Priority = 1
	// PriorityMedium is the default.
	PriorityMedium Priority = 2
	// PriorityHigh is for urgent or important reminders.
	PriorityHigh Priority = 3
)

// String returns "low", "medium" or "high", or "priority(n)" for other
// values.
func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityMedium:
		return "medium"
	case PriorityHigh:
		return "high"
	}
	return fmt.Sprintf("priority(%d)", int(p))
}

// Valid reports whether p is low, medium or high.
func (p Priority) Valid() bool { return p >= PriorityLow && p <= PriorityHigh }

// Intention is one thing the user wants to be reminded of.
type Intention struct {
	// ID identifies the intention; it may be empty until stored.
	ID string `json:"id"`
	// Content is what to remind of ("call mom"). Required.
	Content string `json:"content"`
	// Trigger is the trigger type.
	Trigger Trigger `json:"trigger"`
	// DueAt is when a time intention becomes due. Required for
	// [TriggerTime].
	DueAt time.Time `json:"due_at"`
	// Cue is the cue text of a cue intention (a person's name, a topic).
	Cue string `json:"cue,omitempty"`
	// CueEntities are entity names that fire the cue by entity match. The
	// parser fills it for person forms ("when I talk to Anna"); it is empty
	// for topic cues ("when the budget comes up").
	CueEntities []string `json:"cue_entities,omitempty"`
	// CueEmbedding is the cue's embedding for the embedding match; empty
	// switches that path off.
	CueEmbedding []float32 `json:"cue_embedding,omitempty"`
	// Lang is the language the cue's terms are stemmed in; empty means
	// detect it from the cue.
	Lang textproc.Lang `json:"lang,omitempty"`
	// Status is the lifecycle state.
	Status Status `json:"status"`
	// Priority orders due intentions.
	Priority Priority `json:"priority"`
	// CreatedAt is when the intention was formed; zero means unknown.
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt is when a still pending intention expires; zero means never.
	ExpiresAt time.Time `json:"expires_at"`
	// ResolvedAt is when it fired, was dismissed or expired; zero while
	// pending.
	ResolvedAt time.Time `json:"resolved_at"`
}

// Validate reports the first inconsistency of in as an error wrapping
// [ErrInvalidInput]: empty content, unknown trigger, status or priority, a
// time intention without DueAt, a cue intention without cue, cue entities or
// embedding, an empty cue entity, a non-finite embedding value, or an
// ExpiresAt before CreatedAt or (for time intentions) before DueAt.
func (in Intention) Validate() error {
	switch {
	case strings.TrimSpace(in.Content) == "":
		return wrapf(ErrInvalidInput, "intention %q has no content", in.ID)
	case !in.Trigger.Valid():
		return wrapf(ErrInvalidInput, "intention %q has unknown trigger %q", in.ID, in.Trigger)
	case !in.Status.Valid():
		return wrapf(ErrInvalidInput, "intention %q has unknown status %q", in.ID, in.Status)
	case !in.Priority.Valid():
		return wrapf(ErrInvalidInput, "intention %q has invalid priority %d", in.ID, int(in.Priority))
	case in.Trigger == TriggerTime && in.DueAt.IsZero():
		return wrapf(ErrInvalidInput, "time intention %q has no DueAt", in.ID)
	case in.Trigger == TriggerCue && strings.TrimSpace(in.Cue) == "" && len(in.CueEntities) == 0 && len(in.CueEmbedding) == 0:
		return wrapf(ErrInvalidInput, "cue intention %q has no cue", in.ID)
	case !in.ExpiresAt.IsZero() && !in.CreatedAt.IsZero() && in.ExpiresAt.Before(in.CreatedAt):
		return wrapf(ErrInvalidInput, "intention %q expires before it was created", in.ID)
	case !in.ExpiresAt.IsZero() && in.Trigger == TriggerTime && in.ExpiresAt.Before(in.DueAt):
		return wrapf(ErrInvalidInput, "intention %q expires before it is due", in.ID)
	}
	for _, e := range in.CueEntities {
		if strings.TrimSpace(e) == "" {
			return wrapf(ErrInvalidInput, "intention %q has an empty cue entity", in.ID)
		}
	}
	for i, x := range in.CueEmbedding {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return wrapf(ErrInvalidInput, "intention %q cue embedding[%d] is %v", in.ID, i, x)
		}
	}
	return nil
}

// IsExpired reports whether in is pending and now is at or past its
// ExpiresAt.
func (in Intention) IsExpired(now time.Time) bool {
	return in.Status == StatusPending && !in.ExpiresAt.IsZero() && !now.Before(in.ExpiresAt)
}

func transition(in Intention, to Status, now time.Time) (Intention, error) {
	if err := in.Validate(); err != nil {
		return Intention{}, err
	}
	if !CanTransition(in.Status, to) {
		return Intention{}, wrapf(ErrTransition, "intention %q cannot go from %s to %s", in.ID, in.Status, to)
	}
	if !in.CreatedAt.IsZero() && now.Before(in.CreatedAt) {
		return Intention{}, wrapf(ErrInvalidInput, "intention %q: now %v is before its creation %v", in.ID, now, in.CreatedAt)
	}
	in.Status, in.ResolvedAt = to, now
	in.CueEntities = slices.Clone(in.CueEntities)
	in.CueEmbedding = slices.Clone(in.CueEmbedding)
	return in, nil
}

// Fire returns in marked fired at now. It fails with [ErrTransition] unless
// in is pending, when in has expired by now (call [Expire] instead), or when
// a time intention is not yet due.
func Fire(in Intention, now time.Time) (Intention, error) {
	if in.IsExpired(now) {
		return Intention{}, wrapf(ErrTransition, "intention %q expired at %v", in.ID, in.ExpiresAt)
	}
	if in.Status == StatusPending && in.Trigger == TriggerTime && now.Before(in.DueAt) {
		return Intention{}, wrapf(ErrTransition, "intention %q is not due before %v", in.ID, in.DueAt)
	}
	return transition(in, StatusFired, now)
}

// Dismiss returns in marked dismissed at now. Pending and expired
// intentions can be dismissed; fired and dismissed ones cannot
// ([ErrTransition]).
func Dismiss(in Intention, now time.Time) (Intention, error) {
	return transition(in, StatusDismissed, now)
}

// Expire returns in marked expired at now. It fails with [ErrTransition]
// unless in is pending with an ExpiresAt at or before now.
func Expire(in Intention, now time.Time) (Intention, error) {
	if in.Status == StatusPending && !in.IsExpired(now) {
		return Intention{}, wrapf(ErrTransition, "intention %q does not expire before %v", in.ID, in.ExpiresAt)
	}
	return transition(in, StatusExpired, now)
}

// sortDue orders by priority (high first), then the key time, then ID.
func sortDue(out []Intention, key func(Intention) time.Time) {
	slices.SortStableFunc(out, func(a, b Intention) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), key(a).Compare(key(b)), cmp.Compare(a.ID, b.ID))
	})
}

// DueByTime returns the pending time intentions whose DueAt is at or before
// now and that have not expired by now, ordered by priority (high first),
// then DueAt, then ID. Invalid intentions are left out. The input is not
// modified; the caller fires the returned ones with [Fire].
func DueByTime(intentions []Intention, now time.Time) []Intention {
	var out []Intention
	for _, in := range intentions {
		if in.Status != StatusPending || in.Trigger != TriggerTime || in.DueAt.After(now) || in.IsExpired(now) || in.Validate() != nil {
			continue
		}
		out = append(out, in)
	}
	sortDue(out, func(in Intention) time.Time { return in.DueAt })
	return out
}

// ExpiredBy returns the pending intentions that have expired by now, ordered
// by ExpiresAt, then ID; the caller marks them with [Expire].
func ExpiredBy(intentions []Intention, now time.Time) []Intention {
	var out []Intention
	for _, in := range intentions {
		if in.IsExpired(now) {
			out = append(out, in)
		}
	}
	slices.SortStableFunc(out, func(a, b Intention) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.ID, b.ID))
	})
	return out
}
