package coordinator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// Neuromodulation [neuromodulator]: what the tenant experiences is recorded as typed events in
// zb.neuromodulator_event, and the tenant's levels (pma.NeuromodulatorEngine: tonic baseline 0.5
// with the homeostatic pull, phasic bursts with a 5-minute half-life) are the replay of its recent
// events. The interactive paths only append events (one INSERT, no lock on shared state, so
// concurrent stores and recalls of a tenant never wait on each other):
//
//	event             written by   when                                                magnitude
//	prediction_error  Store        a new fact supersedes stored facts (a value changed)  NeuroSupersedeMagnitude
//	exploration       Recall       the best returned memory's cosine < NeuroFamiliarCosine,
//	                               or nothing was found                                  1 − best cosine
//	reward            Feedback     used = true                                           1
//	rejection         Feedback     used = false                                          1
//	novelty           Derive       per call, over its semantic and episodic memories     mean of 1 − the best cosine
//	                                                                                     to a stored semantic fact
//	prediction_error  Derive       per new 'contradicts' link                            1
//	prediction_error  Derive       a reconsolidation that changed or added a memory      min(1, effective PE)
//	confirmation      Derive       a reconsolidation in mode confirmed                   1
//
// The lifecycle jobs replay them: Derive, DecayDue (every few minutes per tenant: the
// neuromodulator tick) and Sleep write the state at their time into zb.neuromodulator_state,
// and Derive reads the levels at each memory's time (priority scores, reconsolidation's
// effective prediction error). The replay starts from the baseline at the start of the tick that
// contains now − NeuroWindow and takes at most NeuroMaxEvents events (the newest), so it is
// exact up to the pull left of older history (0.95^144 < 0.1 % of a deviation after 12 hours) and
// does not depend on the order in which concurrent transactions commit their events.
// Neuromodulator reports the levels at any time, events not yet replayed included. A tenant with
// the neuromodulator switched off records no events, and its levels read as the baseline.
const (
	// NeuroWindow is how far back the replay of a tenant's events starts.
	NeuroWindow = 12 * time.Hour
	// NeuroMaxEvents caps the events replayed (the newest).
	NeuroMaxEvents = 2000
	// NeuroFamiliarCosine is the cosine similarity from which a recall's best result counts as
	// familiar; below it the recall is an exploration of an unfamiliar area.
	NeuroFamiliarCosine = 0.5
	// NeuroSupersedeMagnitude is the magnitude of the prediction error of a superseding fact.
	NeuroSupersedeMagnitude = 0.5
)

// neuroEvent is one event to record.
type neuroEvent struct {
	Type      pma.EventType
	Magnitude float64
	MemoryID  *int64
}

// neuroLog is a tenant's recent events, oldest first, replayable from start.
type neuroLog struct {
	tenant string
	eng    *pma.NeuromodulatorEngine
	start  time.Time
	events []pma.Event
	off    bool
	// away reports that the stored state may be away from the baseline.
	away bool
}

// stateAt replays the events at or before t from the baseline at start and advances to t.
func (l *neuroLog) stateAt(t time.Time) pma.NeuromodulatorState {
	s := l.eng.NewState(l.tenant, l.start)
	for _, ev := range l.events {
		if ev.At.After(t) {
			break
		}
		if ns, err := l.eng.Apply(s, ev); err == nil {
			s = ns
		}
	}
	if t.After(l.start) {
		if ns, err := l.eng.Advance(s, t); err == nil {
			s = ns
		}
	}
	return s
}

// levelsAt returns the effective levels at t (the baseline when the neuromodulator is off).
func (l *neuroLog) levelsAt(t time.Time) pma.Levels {
	if l == nil || l.off || len(l.events) == 0 {
		return pma.BaselineLevels()
	}
	lv, err := l.eng.Levels(l.stateAt(t), t)
	if err != nil {
		return pma.BaselineLevels()
	}
	return lv
}

// add appends events at t (kept in time order).
func (l *neuroLog) add(t time.Time, evs []neuroEvent) {
	for _, e := range evs {
		l.events = append(l.events, pma.Event{Type: e.Type, Magnitude: lcClamp(e.Magnitude, 0, 1), At: t})
	}
	slices.SortStableFunc(l.events, func(a, b pma.Event) int { return a.At.Compare(b.At) })
}

func newNeuroLog(tenant string, sw switchSet, now time.Time) (*neuroLog, error) {
	eng, err := pma.NewNeuromodulatorEngine(nil)
	if err != nil {
		return nil, err
	}
	return &neuroLog{
		tenant: tenant, eng: eng, start: now.Add(-NeuroWindow).Truncate(eng.Config().Tick),
		off: !sw.enabled("neuromodulator"), away: true,
	}, nil
}

// loadNeuro reads the tenant's events of the replay window ending at now.
func (c *Coordinator) loadNeuro(ctx context.Context, q *db.Queries, tenant string, sw switchSet, now time.Time) (*neuroLog, error) {
	l, err := newNeuroLog(tenant, sw, now)
	if err != nil || l.off {
		return l, err
	}
	rows, err := q.NeuroEventsRecent(ctx, db.NeuroEventsRecentParams{TenantID: tenant, Since: l.start, Until: now, K: NeuroMaxEvents})
	if err != nil {
		return nil, err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		l.events = append(l.events, pma.Event{Type: pma.EventType(r.Event), Magnitude: lcClamp(float64(r.Magnitude), 0, 1), At: r.CreatedAt})
	}
	return l, nil
}

// lifecyclePreamble reads in one round trip what a lifecycle job needs first (and switches JIT
// off for its transaction): the tenant's algorithm switches and its neuromodulator events.
func (c *Coordinator) lifecyclePreamble(ctx context.Context, q *db.Queries, tenant string, now time.Time) (switchSet, *neuroLog, error) {
	l, err := newNeuroLog(tenant, nil, now)
	if err != nil {
		return nil, nil, err
	}
	row, err := q.NeuroTickPreamble(ctx, db.NeuroTickPreambleParams{
		TenantID: tenant, Since: l.start, Now: now, K: NeuroMaxEvents,
		Baseline: float32(l.eng.Config().Baseline),
	})
	if err != nil {
		return nil, nil, err
	}
	sw := disabledSet(row.Disabled)
	l.off, l.away = !sw.enabled("neuromodulator"), row.Away
	if l.off || len(row.Magnitudes) != len(row.Events) || len(row.Times) != len(row.Events) {
		return sw, l, nil
	}
	for i, e := range row.Events {
		l.events = append(l.events, pma.Event{Type: pma.EventType(e), Magnitude: lcClamp(float64(row.Magnitudes[i]), 0, 1), At: row.Times[i]})
	}
	return sw, l, nil
}

// neuroEmit appends events of tenant at now (nothing when the neuromodulator is off).
func (c *Coordinator) neuroEmit(ctx context.Context, q *db.Queries, tenant string, sw switchSet, now time.Time, evs []neuroEvent) error {
	if len(evs) == 0 || !sw.enabled("neuromodulator") {
		return nil
	}
	p := db.NeuroEventInsertManyParams{TenantID: tenant, Now: now}
	for _, e := range evs {
		var id int64
		if e.MemoryID != nil {
			id = *e.MemoryID
		}
		p.Events, p.Magnitudes = append(p.Events, string(e.Type)), append(p.Magnitudes, float32(lcClamp(e.Magnitude, 0, 1)))
		p.MemoryIds = append(p.MemoryIds, id)
	}
	if err := q.NeuroEventInsertMany(ctx, p); err != nil {
		return fmt.Errorf("error recording neuromodulator events: %w", err)
	}
	return nil
}

// neuroRecord appends evs at now and writes the tenant's state at now replayed from l (loaded
// in the same transaction) and evs; with no event in the window a stored state returns to the
// baseline (a tenant that never had an event keeps no state row).
func (c *Coordinator) neuroRecord(ctx context.Context, q *db.Queries, tenant string, sw switchSet, now time.Time, evs []neuroEvent, l *neuroLog) error {
	if l == nil || l.off || !sw.enabled("neuromodulator") {
		return nil
	}
	if err := c.neuroEmit(ctx, q, tenant, sw, now, evs); err != nil {
		return err
	}
	l.add(now, evs)
	if len(l.events) == 0 {
		if !l.away {
			return nil
		}
		// Nothing left in the window: a stored state has returned to the baseline.
		l.away = false
		return q.NeuroStateBaseline(ctx, db.NeuroStateBaselineParams{TenantID: tenant, Baseline: float32(l.eng.Config().Baseline), Now: now})
	}
	l.away = true
	s := l.stateAt(now)
	f := func(x float64, lo float64) float32 { return float32(lcClamp(x, lo, 1)) }
	return q.NeuroStateUpsert(ctx, db.NeuroStateUpsertParams{
		TenantID: tenant,
		DaTonic:  f(s.TonicDA, 0), NeTonic: f(s.TonicNE, 0), HtTonic: f(s.TonicSerotonin, 0), AchTonic: f(s.TonicACh, 0),
		DaPhasic: f(s.PhasicDA, -1), NePhasic: f(s.PhasicNE, -1), HtPhasic: f(s.PhasicSerotonin, -1), AchPhasic: f(s.PhasicACh, -1),
		PhasicAt: s.UpdatedAt, LastTickAt: s.LastTickAt, Now: now,
	})
}

// neuroOnStore records a stored memory's events: a prediction error when it superseded stored
// facts or was superseded at once (a known value changed).
func (c *Coordinator) neuroOnStore(ctx context.Context, q *db.Queries, tenant string, res *StoreResult, now time.Time) error {
	if len(res.Superseded) == 0 && res.SupersededBy == 0 {
		return nil
	}
	sw, err := c.switches(ctx, q, tenant)
	if err != nil {
		return err
	}
	id := res.ID
	return c.neuroEmit(ctx, q, tenant, sw, now, []neuroEvent{{Type: pma.EventPredictionError, Magnitude: NeuroSupersedeMagnitude, MemoryID: &id}})
}

// neuroOnRecall records an exploration when a recall found nothing familiar: no result, or a best
// vector match below NeuroFamiliarCosine (recalls without any vector signal only when empty).
func (c *Coordinator) neuroOnRecall(ctx context.Context, q *db.Queries, tenant string, results []Result, sw switchSet, now time.Time) error {
	best, vector := 0.0, false
	for _, r := range results {
		if r.ByVector {
			best, vector = max(best, r.Signals.Cosine), true
		}
	}
	if len(results) > 0 && (!vector || best >= NeuroFamiliarCosine) {
		return nil
	}
	if sw == nil { // a recall without candidates did not read the tenant's switches
		var err error
		if sw, err = c.switches(ctx, q, tenant); err != nil {
			return err
		}
	}
	return c.neuroEmit(ctx, q, tenant, sw, now, []neuroEvent{{Type: pma.EventExploration, Magnitude: lcClamp(1-best, 0, 1)}})
}

// neuroOnFeedback records a reward for a used memory and a rejection for one that was not.
func (c *Coordinator) neuroOnFeedback(ctx context.Context, q *db.Queries, tenant string, memoryID int64, used bool, now time.Time) error {
	sw, err := c.switches(ctx, q, tenant)
	if err != nil {
		return err
	}
	ev := neuroEvent{Type: pma.EventReward, Magnitude: 1, MemoryID: &memoryID}
	if !used {
		ev.Type = pma.EventRejection
	}
	return c.neuroEmit(ctx, q, tenant, sw, now, []neuroEvent{ev})
}

// NeuromodulatorStatus is a tenant's neuromodulator state at one time.
type NeuromodulatorStatus struct {
	// Enabled reports the tenant's neuromodulator switch; off means baseline levels.
	Enabled bool `json:"enabled"`
	// At is the time of the figures.
	At time.Time `json:"at"`
	// Levels are the effective levels (tonic + phasic); Tonic and Phasic their parts.
	Levels pma.Levels `json:"levels"`
	Tonic  pma.Levels `json:"tonic"`
	Phasic pma.Levels `json:"phasic"`
	// Outputs are the control signals of Levels.
	Outputs pma.NeuromodulatorOutputs `json:"outputs"`
	// Events is the number of events replayed (within NeuroWindow, at most NeuroMaxEvents).
	Events int `json:"events"`
}

// Neuromodulator returns tenant's neuromodulator levels now, replayed from its recent events
// (including those the lifecycle jobs have not written into zb.neuromodulator_state yet). It
// writes nothing.
func (c *Coordinator) Neuromodulator(ctx context.Context, tenant string) (*NeuromodulatorStatus, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	now := c.clock.Now()
	l, err := tenantRead(ctx, c, tenant, func(q *db.Queries) (*neuroLog, error) {
		sw, err := c.switches(ctx, q, tenant)
		if err != nil {
			return nil, err
		}
		return c.loadNeuro(ctx, q, tenant, sw, now)
	})
	if err != nil {
		return nil, interpretError("reading neuromodulator events", err)
	}
	st := &NeuromodulatorStatus{Enabled: !l.off, At: now, Levels: pma.BaselineLevels(), Tonic: pma.BaselineLevels(), Events: len(l.events)}
	if !l.off && len(l.events) > 0 {
		s := l.stateAt(now)
		st.Levels, st.Tonic, st.Phasic = l.levelsAt(now), s.Tonic(), s.Phasic()
	}
	st.Outputs = pma.OutputsFor(st.Levels)
	return st, nil
}
