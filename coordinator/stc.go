package coordinator

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// Parameters of synaptic tagging and capture [stc_rescue] on stored state. The thresholds,
// window, gain and factor are pma's: STCTagBelowDefault (0.4), STCDonorAboveDefault (0.7),
// STCCaptureWindowDefault (30 min), STCStrengthGainDefault (+0.3), STCDecayFactorDefault (0.5).
const (
	// STCClusterMinWeight is the least weight of an entity edge that puts its two entities in
	// one cluster: a donor is related to a tagged memory when it mentions one of the tagged
	// memory's entities or an entity joined to one of them by an edge at least this strong
	// (three co-activations from scratch, with η 0.1).
	STCClusterMinWeight = 0.3
	// STCClusterCost weighs the donor search's two ways (StcDonors): it reads the memories
	// mentioning the clusters' entities when their mention count times this is at most the
	// cost of the other way, else it takes the memories activated in the tags' span — from the
	// activation log (0027; its rows in the span times STCActivationLookupCost are the cost), or,
	// for a span older than the log's horizon or when that costs more, by scanning the tenant
	// (its memory count is the cost). Measured on a 30k
	// tenant whose clusters cover it: 90 000 mentions read in 96 ms, 30 000 memories scanned in
	// 30 ms — about the same per mention as per scanned memory.
	STCClusterCost = 1.0
	// STCActivationLookupCost weighs an activation read from the log (0027) — the log row and
	// the memory through its primary key — against a memory read by scanning the tenant: the
	// log is used for a span while its rows times this cost no more than the tenant's memory
	// count. Measured in a 100k tenant that was wholly active in the span: 436 ms from the log
	// against 60 ms scanned (≈ 7×).
	STCActivationLookupCost = 8.0
	// STCMaxTagsPerPass bounds the open tags one capture pass looks at (oldest first).
	STCMaxTagsPerPass = 500
	// STCSleepMaxTags bounds the weak memories one sleep tags.
	STCSleepMaxTags = 5000
	// STCActivationRetention is how long the activation log (zb.memory_activation, 0027) keeps
	// a tenant's rows: sleep prunes older ones. It covers a first sweep's lookback
	// (SleepLookback) with a day to spare, so that sweeps up to eight days apart, recalls and
	// derive batches read the log; an older span reads the tenant's memories instead.
	STCActivationRetention = SleepLookback + 24*time.Hour
	// STCDefaultMediumTau is the medium triple copy's time constant given to a rescued memory
	// that had no medium copy, before doubling (pma.TripleCopyTauMediumDefault, 14 days).
	STCDefaultMediumTau = pma.TripleCopyTauMediumDefault
	// maxStability is the largest stability (days) the memory table accepts, minus a margin.
	maxStability = 999999.0
)

// STCRescue is one rescue by synaptic tagging and capture.
type STCRescue struct {
	// MemoryID is the rescued (weak, tagged) memory; DonorID the strong related memory whose
	// activation captured its tag.
	MemoryID int64 `json:"memory_id"`
	DonorID  int64 `json:"donor_id"`
	// StrengthBefore and StrengthAfter are its triple-copy strength at the rescue:
	// after = min(1, before + 0.3).
	StrengthBefore float64 `json:"strength_before"`
	StrengthAfter  float64 `json:"strength_after"`
	// StabilityBefore and StabilityAfter are its forgetting-model stability in days: the decay
	// rate 1/S is halved, so after = 2·before.
	StabilityBefore float64 `json:"stability_before"`
	StabilityAfter  float64 `json:"stability_after"`
	// FadeAt is its new predicted fade time (nil: never).
	FadeAt *time.Time `json:"fade_at,omitempty"`
}

// STCReport is what one tagging-and-capture pass did.
type STCReport struct {
	// Tagged lists the weak memories tagged by this pass.
	Tagged []int64 `json:"tagged"`
	// Rescued lists the rescues.
	Rescued []STCRescue `json:"rescued"`
}

// recallHooks runs the mechanisms beyond the fifteen that a recall drives, inside recall's
// side-effect transaction after RecallApply (ap; nil when the recall returned nothing): capture
// of the open synaptic tags [stc_rescue] — RecallApply tagged the weak touched memories; every
// unrescued tag within the capture window of now is offered to the strong related memories
// activated within its window, these among them — and cue intentions matched against the
// query [prospective]. Each only with its switch on, and only when RecallApply found open tags
// or pending cues. The query's index terms for the curiosity log [curiosity] travel with the
// recall event.
func (c *Coordinator) recallHooks(ctx context.Context, q *db.Queries, tenant, query string, qvec []float32,
	ap *db.RecallApplyRow, sw switchSet, now time.Time,
) error {
	if sw.enabled("stc_rescue") && ap != nil && ap.OpenTags {
		_, cfg, err := stcModel()
		if err != nil {
			return err
		}
		if _, err := c.stcCapture(ctx, q, tenant, now.Add(-cfg.CaptureWindow), now, now); err != nil {
			return err
		}
	}
	if sw.enabled("prospective") && (ap == nil || ap.PendingCues) {
		if _, err := c.fireCues(ctx, q, tenant, now, cueSource{text: query, embedding: qvec, source: "recall", at: now}); err != nil {
			return err
		}
	}
	return nil
}

// deriveHooks runs the mechanisms beyond the fifteen that storing memories drives, inside the
// derive transaction after the memories' entities are known (ms in id order; embs holds the
// embeddings this derivation computed): each memory's formation is an activation for synaptic
// tagging and capture [stc_rescue], and each is matched against the pending cue intentions by
// entity, keyword or embedding [prospective]. A batch costs one statement per mechanism when no
// tag is open and no cue is pending.
func (c *Coordinator) deriveHooks(ctx context.Context, q *db.Queries, tenant string, ms []*db.ZbMemory, embs map[int64][]float32,
	sw switchSet, now time.Time,
) error {
	var live []*db.ZbMemory
	for _, m := range ms {
		if m.Status == db.ZbMemoryStatusActive {
			live = append(live, m)
		}
	}
	if len(live) == 0 {
		return nil
	}
	if sw.enabled("stc_rescue") {
		if _, err := c.stcFormed(ctx, q, tenant, live, now); err != nil {
			return err
		}
	}
	if sw.enabled("prospective") {
		var srcs []cueSource
		for _, m := range live {
			vec := embs[m.ID]
			if vec == nil && m.Embedding != nil {
				vec = m.Embedding.Slice()
			}
			srcs = append(srcs, cueSource{text: m.Content, embedding: vec, source: "store", memoryID: &m.ID, at: m.CreatedAt})
		}
		if _, err := c.fireCues(ctx, q, tenant, now, srcs...); err != nil {
			return err
		}
	}
	return nil
}

// sleepHook runs sleep's share of the mechanisms beyond the fifteen inside the sleep
// transaction: the tagging-and-capture sweep [stc_rescue] over the activity since the previous
// sweep (lastSweep; zero for a tenant's first sleep), and — switch or not — the pruning of the
// tenant's activation log past STCActivationRetention.
func (c *Coordinator) sleepHook(ctx context.Context, q *db.Queries, tenant string, sw switchSet, lastSweep, now time.Time) error {
	if _, err := q.StcActivationPrune(ctx, db.StcActivationPruneParams{TenantID: tenant, Before: now.Add(-STCActivationRetention)}); err != nil {
		return err
	}
	if !sw.enabled("stc_rescue") {
		return nil
	}
	_, err := c.stcSleep(ctx, q, tenant, lastSweep, now)
	return err
}

func stcModel() (*pma.CaptureRescue, *pma.STCConfig, error) {
	cfg := (&pma.STCConfig{}).WithDefaults()
	m, err := pma.NewCaptureRescue(cfg)
	return m, cfg, err
}

// stcFormed treats the memories of a derive batch as activated at their formation (created_at):
// the weak ones are tagged then, and the unrescued tags set within the capture window of the
// batch's formation times are offered to their donors (these memories among them).
func (c *Coordinator) stcFormed(ctx context.Context, q *db.Queries, tenant string, ms []*db.ZbMemory, now time.Time) (*STCReport, error) {
	_, cfg, err := stcModel()
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(ms))
	from, to := ms[0].CreatedAt, ms[0].CreatedAt
	for i, m := range ms {
		ids[i] = m.ID
		from, to = minTime(from, m.CreatedAt), maxTime(to, m.CreatedAt)
	}
	tagged, err := q.StcTagWeakFormed(ctx, db.StcTagWeakFormedParams{
		TenantID: tenant, Ids: ids, Below: cfg.TagBelow,
		WindowSeconds: cfg.CaptureWindow.Seconds(), Now: now,
	})
	if err != nil {
		return nil, err
	}
	rescued, err := c.stcCapture(ctx, q, tenant, from.Add(-cfg.CaptureWindow), to.Add(cfg.CaptureWindow), now)
	if err != nil {
		return nil, err
	}
	return &STCReport{Tagged: append([]int64{}, tagged...), Rescued: rescued}, nil
}

// stcSleep is the tagging-and-capture sweep of a sleep: weak memories activated since the
// previous sweep (lastSweep; SleepLookback for the first) are tagged at their last activation, and every
// unrescued tag whose window reaches into that span is offered to the strong related memories
// activated within its window. It catches what the store and recall passes could not see: a
// memory that became weak after its activation (contradicting evidence), or a donor activated
// while the tagged memory's row was locked.
func (c *Coordinator) stcSleep(ctx context.Context, q *db.Queries, tenant string, lastSweep, now time.Time) (*STCReport, error) {
	_, cfg, err := stcModel()
	if err != nil {
		return nil, err
	}
	since := now.Add(-SleepLookback)
	if !lastSweep.IsZero() {
		since = lastSweep
	}
	tagged, err := q.StcTagWeakActive(ctx, db.StcTagWeakActiveParams{
		TenantID: tenant, Below: cfg.TagBelow,
		WindowSeconds: cfg.CaptureWindow.Seconds(), Since: since, Now: now, K: STCSleepMaxTags, LookupCost: STCActivationLookupCost,
	})
	if err != nil {
		return nil, err
	}
	rescued, err := c.stcCapture(ctx, q, tenant, since.Add(-cfg.CaptureWindow), now, now)
	if err != nil {
		return nil, err
	}
	rep := &STCReport{Tagged: append([]int64{}, tagged...), Rescued: rescued}
	if len(rep.Tagged) > 0 || len(rep.Rescued) > 0 {
		if err := c.audit(ctx, q, tenant, "memory.stc_sweep", nil, now, map[string]any{
			"since":  since,
			"tagged": rep.Tagged, "rescued": len(rep.Rescued),
		}); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// stcCapture offers the unrescued tags set in [from, to] to their candidate donors
// (pma.CaptureRescue.Rescue chooses: strongest donor, then closest in time, then smallest id) and
// applies each rescue to the stored state (see applyRescue).
func (c *Coordinator) stcCapture(ctx context.Context, q *db.Queries, tenant string, from, to, now time.Time) ([]STCRescue, error) {
	model, cfg, err := stcModel()
	if err != nil {
		return nil, err
	}
	if to.After(now) {
		to = now
	}
	tags, err := q.StcOpenTags(ctx, db.StcOpenTagsParams{TenantID: tenant, FromTime: from, ToTime: to, Now: now, K: STCMaxTagsPerPass})
	if err != nil || len(tags) == 0 {
		return []STCRescue{}, err
	}
	tagIDs := make([]int64, len(tags))
	for i, t := range tags {
		tagIDs[i] = t.MemoryID
	}
	cands, err := q.StcDonors(ctx, db.StcDonorsParams{
		TenantID: tenant, TagIds: tagIDs, MinWeight: STCClusterMinWeight,
		ClusterCost: STCClusterCost, LookupCost: STCActivationLookupCost, Above: cfg.DonorAbove,
		WindowSeconds: cfg.CaptureWindow.Seconds(), Now: now,
	})
	if err != nil {
		return nil, err
	}
	donors := map[int64][]pma.STCDonor{}
	for _, d := range cands {
		donors[d.TagID] = append(donors[d.TagID], pma.STCDonor{
			MemoryID:   strconv.FormatInt(d.DonorID, 10),
			Confidence: lcClamp(d.Confidence, 0, 1), CreatedAt: d.ActivatedAt, Related: true,
		})
	}
	out := []STCRescue{}
	for _, t := range tags {
		ds := donors[t.MemoryID]
		if len(ds) == 0 {
			continue
		}
		tag := pma.STCTag{MemoryID: strconv.FormatInt(t.MemoryID, 10), TaggedAt: t.TaggedAt, Confidence: lcClamp(t.Confidence, 0, 1)}
		// The decision uses the state read without a lock; applyRescue recomputes the numbers
		// from the locked row.
		res, err := model.Rescue(tag, lcClamp(t.Strength, 0, 1), 1, ds, now)
		if err != nil {
			return nil, fmt.Errorf("error deciding the rescue of memory %d: %w", t.MemoryID, err)
		}
		if !res.Rescued {
			continue
		}
		donor, ok := parseID(res.Tag.DonorID)
		if !ok {
			continue
		}
		r, ok, err := c.applyRescue(ctx, q, tenant, model, tag, ds, t.MemoryID, donor, now)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// applyRescue writes one rescue, mapping pma's abstract strength and decay rate onto the stored
// state:
//
//   - strength is the memory's triple-copy strength (max over its copies at now, 0 without
//     copies); the gain min(1, s + 0.3) re-bases the medium copy at now with that strength;
//   - the decay rate is that of the forgetting model, 1/S per day, and of the medium copy,
//     1/τ; halving it doubles the stability S (fade_at recomputed from the memory's last access)
//     and the medium copy's τ.
//
// The memory row is locked first, skipping a row another transaction holds (a sleep or decay
// run: the rescue is left for the next pass); the tag is then marked rescued only if no
// concurrent pass did so first. It reports whether the rescue was written.
func (c *Coordinator) applyRescue(ctx context.Context, q *db.Queries, tenant string, model *pma.CaptureRescue,
	tag pma.STCTag, donors []pma.STCDonor, memID, donorID int64, now time.Time,
) (STCRescue, bool, error) {
	rows, err := q.StcLockMemory(ctx, db.StcLockMemoryParams{TenantID: tenant, ID: memID, Now: now})
	if err != nil || len(rows) == 0 || rows[0].Stability == nil || !(*rows[0].Stability > 0) {
		return STCRescue{}, false, err
	}
	m := rows[0]
	s0 := *m.Stability
	res, err := model.Rescue(tag, lcClamp(m.Strength, 0, 1), 1/s0, slices.DeleteFunc(slices.Clone(donors),
		func(d pma.STCDonor) bool { return d.MemoryID != strconv.FormatInt(donorID, 10) }), now)
	if err != nil || !res.Rescued || !(res.DecayRate > 0) {
		return STCRescue{}, false, err
	}
	n, err := q.StcRescueTag(ctx, db.StcRescueTagParams{TenantID: tenant, MemoryID: memID, DonorID: donorID, Now: now})
	if err != nil || n == 0 {
		return STCRescue{}, false, err
	}
	s1 := min(1/res.DecayRate, maxStability)
	var fade *time.Time
	if tr, ok := lcTrace(m.Layer, &s1, m.Valence, m.Arousal, m.Significance, m.LastAccessedAt); ok {
		fade = lcFadeAt(tr)
	}
	if _, err := q.StcMemoryRescue(ctx, db.StcMemoryRescueParams{TenantID: tenant, ID: memID, Stability: s1, FadeAt: fade, Now: now}); err != nil {
		return STCRescue{}, false, err
	}
	tau := m.MediumTau
	if !(tau > 0) {
		tau = STCDefaultMediumTau.Seconds()
	}
	cfg := (&pma.STCConfig{}).WithDefaults()
	if err := q.StcCopyRescue(ctx, db.StcCopyRescueParams{
		TenantID: tenant, MemoryID: memID, Strength: res.Strength,
		TauSeconds: tau / cfg.DecayFactor, Now: now,
	}); err != nil {
		return STCRescue{}, false, err
	}
	r := STCRescue{
		MemoryID: memID, DonorID: donorID, StrengthBefore: lcClamp(m.Strength, 0, 1), StrengthAfter: res.Strength,
		StabilityBefore: s0, StabilityAfter: s1, FadeAt: fade,
	}
	if err := c.audit(ctx, q, tenant, "memory.stc_rescue", &memID, now, r); err != nil {
		return STCRescue{}, false, err
	}
	return r, true, nil
}

// STCTag is one synaptic tag as stored in zb.stc_tag.
type STCTag struct {
	// MemoryID is the tagged memory.
	MemoryID int64 `json:"memory_id"`
	// TaggedAt is the activation that set the tag; ExpiresAt closes its capture window.
	TaggedAt  time.Time `json:"tagged_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// StrengthBefore is the memory's triple-copy strength when it was tagged.
	StrengthBefore float64 `json:"strength_before"`
	// RescuedAt and RescuedBy are set once a donor captured the tag.
	RescuedAt *time.Time `json:"rescued_at,omitempty"`
	RescuedBy *int64     `json:"rescued_by,omitempty"`
}

// STCTags returns a tenant's synaptic tags, newest first, at most limit (0 means 100; at most
// MaxLifecycleLimit).
func (c *Coordinator) STCTags(ctx context.Context, tenant string, limit int) ([]STCTag, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	k, err := checkLimit(limit, 100)
	if err != nil {
		return nil, err
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.StcTagListRow, error) {
		return q.StcTagList(ctx, db.StcTagListParams{TenantID: tenant, K: int32(k)})
	})
	if err != nil {
		return nil, interpretError("listing synaptic tags", err)
	}
	out := make([]STCTag, len(rows))
	for i, r := range rows {
		out[i] = STCTag{
			MemoryID: r.MemoryID, TaggedAt: r.TaggedAt, ExpiresAt: r.ExpiresAt, StrengthBefore: r.StrengthBefore,
			RescuedAt: r.RescuedAt, RescuedBy: r.RescuedBy,
		}
	}
	return out, nil
}
