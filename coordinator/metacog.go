package coordinator

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// Metacognitive signal kinds recorded in zb.metacog_event by MetacogAssess (besides the alert
// kinds of pma: recency_bias, confirmation_bias, asymmetry).
const (
	MetacogRetrievalEfficiency = "retrieval_efficiency"
	MetacogRecallSuccessRate   = "recall_success_rate"
	MetacogCalibrationError    = "calibration_error"
	MetacogEfficiencyTrend     = "efficiency_trend"
)

// metacogAssess runs the metacognitive monitor [metacog_monitor] over the tenant's recall log of
// the last pma.MetacogWindowDefault (30 days) and records its signals in zb.metacog_event, one
// event per kind — recency_bias, retrieval_efficiency, recall_success_rate, calibration_error,
// efficiency_trend — flagged alert when the monitor raised an alert of that kind (detail: the
// alert's message, threshold and z score). A result counts as used when a "used" feedback on it
// followed the recall (before the next recall that returned it again). Every event carries the
// basis of its input (number of recalls, the newest recall id, the number of feedback events);
// an event of the same kind and basis is not written again, so re-running the job on unchanged
// logs writes nothing. It returns the number of events written (0 without recalls or with the
// monitor switched off). The sleep job calls it in its transaction.
func (c *Coordinator) metacogAssess(ctx context.Context, q *db.Queries, tenant string, sw switchSet, now time.Time) (int, error) {
	if !sw.enabled("metacog_monitor") {
		return 0, nil
	}
	mon, err := pma.NewMetacognitiveMonitor(nil)
	if err != nil {
		return 0, err
	}
	since := now.Add(-pma.MetacogWindowDefault)
	rows, err := q.MetacogRecallResults(ctx, db.MetacogRecallResultsParams{TenantID: tenant, Since: since, Now: now})
	if err != nil {
		return 0, fmt.Errorf("error reading the recall log: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	var in pma.MetacogInput
	var lastID int64
	for _, r := range rows {
		if n := len(in.Recalls); n == 0 || r.RecallID != lastID {
			in.Recalls = append(in.Recalls, pma.RecallEvent{At: r.RecallAt, Success: r.Success})
			lastID = max(lastID, r.RecallID)
		}
		if r.MemoryID > 0 {
			ev := &in.Recalls[len(in.Recalls)-1]
			ev.Results = append(ev.Results, pma.RecallResult{
				MemoryID: strconv.FormatInt(r.MemoryID, 10), AgeDays: max(r.AgeDays, 0),
				Confidence: lcClamp(r.Confidence, 0, 1), Used: r.Used,
			})
		}
	}
	feedback, err := q.MetacogFeedbackCount(ctx, db.MetacogFeedbackCountParams{TenantID: tenant, Since: since, Now: now})
	if err != nil {
		return 0, fmt.Errorf("error counting feedback: %w", err)
	}
	as, err := mon.Assess(in, now)
	if err != nil {
		return 0, fmt.Errorf("error assessing the recall log: %w", err)
	}
	basis := map[string]any{"recalls": len(in.Recalls), "last_recall_id": lastID, "feedback": feedback}
	alerts := map[string]pma.Alert{}
	for _, a := range as.Alerts {
		alerts[a.Kind] = a
	}
	s := as.Signals
	written := 0
	for _, sig := range []struct {
		kind  string
		value float64
	}{
		{pma.AlertRecencyBias, s.RecencyBias},
		{MetacogRetrievalEfficiency, s.RetrievalEfficiency},
		{MetacogRecallSuccessRate, s.RecallSuccessRate},
		{MetacogCalibrationError, s.CalibrationError},
		{MetacogEfficiencyTrend, s.EfficiencyTrend},
	} {
		detail := map[string]any{"basis": basis}
		a, alert := alerts[sig.kind]
		if alert {
			detail["message"], detail["threshold"], detail["z"] = a.Message, a.Threshold, a.Z
		}
		n, err := q.MetacogEventInsert(ctx, db.MetacogEventInsertParams{
			TenantID: tenant, Kind: sig.kind, Value: sig.value,
			Alert: alert, Detail: mustJSON(detail), Now: now,
		})
		if err != nil {
			return written, fmt.Errorf("error recording metacognitive event %s: %w", sig.kind, err)
		}
		written += int(n)
	}
	return written, nil
}
