package pma

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/zenbrain/zb/algorithms/layer"
	"github.com/zenbrain/zb/algorithms/textproc"
)

// Defaults of [ReconsolidationConfig].
const (
	// LabilityWindowDefault is how long a recalled memory stays labile.
	LabilityWindowDefault = 10 * time.Minute
	// ContradictionPenaltyDefault is added to the raw prediction error when a
	// contradiction is detected.
	ContradictionPenaltyDefault = 0.2
	// ConfirmedBelowDefault is the upper bound of the confirmed band.
	ConfirmedBelowDefault = 0.1
	// SelectiveEditBelowDefault is the upper bound of the selective-edit band.
	SelectiveEditBelowDefault = 0.3
	// IntegrationBelowDefault is the upper bound of the integration band.
	IntegrationBelowDefault = 0.7
	// ConfirmGrowthDefault is the stability growth of a confirmation at
	// learning-rate multiplier 1: stability ×(1 + 0.2·LearningRate).
	ConfirmGrowthDefault = 0.2
	// NewEpisodeStabilityDefault is the stability in days of a memory created
	// by a new_episode plan (the design's episodic initial stability).
	NewEpisodeStabilityDefault = 1.0
)

// ErrNotLabile is returned when reconsolidation is asked for a memory without
// an open lability window at the given time.
var ErrNotLabile = errors.New("pma: memory is not labile")

// ErrStaleSnapshot is returned when a plan is applied to a memory that has
// changed since the plan's snapshot was taken.
var ErrStaleSnapshot = errors.New("pma: memory changed since the snapshot")

// Layer is one of the seven memory layers; it is [layer.Layer].
type Layer = layer.Layer

// The seven layers (aliases of the constants of package layer).
const (
	LayerWorking      = layer.Working
	LayerShortTerm    = layer.ShortTerm
	LayerEpisodic     = layer.Episodic
	LayerSemantic     = layer.Semantic
	LayerProcedural   = layer.Procedural
	LayerCore         = layer.Core
	LayerCrossContext = layer.CrossContext
)

// DefaultResistance returns the per-layer resistance multipliers r. The
// confirmed band becomes PE < 0.1·r and the integration band ends at
// max(0.3, 0.7/r), so a resistant memory ignores more small differences as
// confirmations and sends more large ones to a separate new episode instead
// of merging them in:
//
//	working, short_term, episodic, semantic, cross_context  1.0
//	procedural                                              1.5
//	core                                                    2.0
//
// Procedural memories resist because a routine should change by its outcomes
// (reported successes and failures), not by a rephrasing; core memories
// because identity facts are pinned by explicit label.
func DefaultResistance() map[Layer]float64 {
	return map[Layer]float64{
		LayerWorking: 1, LayerShortTerm: 1, LayerEpisodic: 1, LayerSemantic: 1, LayerCrossContext: 1,
		LayerProcedural: 1.5, LayerCore: 2,
	}
}

// Mode is what reconsolidation does with a labile memory.
type Mode string

// The modes.
const (
	// ModeConfirmed strengthens the memory (PE below the confirmed bound).
	ModeConfirmed Mode = "confirmed"
	// ModeSelectiveEdit replaces the changed part of the memory.
	ModeSelectiveEdit Mode = "selective_edit"
	// ModeIntegration merges the new information into the memory.
	ModeIntegration Mode = "integration"
	// ModeNewEpisode keeps the memory and adds a new, linked one.
	ModeNewEpisode Mode = "new_episode"
	// ModeNoop changes nothing (a blocked plan).
	ModeNoop Mode = "noop"
)

// Link relations used by new_episode plans.
const (
	// RelationContradicts links a new episode that contradicts the old memory.
	RelationContradicts = "contradicts"
	// RelationElaborates links a new episode that carries details the old
	// memory could not absorb (an integration blocked by the stability gate).
	RelationElaborates = "elaborates"
	// RelationCoOccurs links a new episode that arrived while the old memory
	// was labile but is about something else.
	RelationCoOccurs = "co_occurs"
)

// Block reasons.
const (
	// BlockStabilityLock means the StabilityProtector gate refused the
	// overwrite.
	BlockStabilityLock = "stability_lock"
	// BlockCrossContext means the new information came from another context
	// than the one the memory was recalled in.
	BlockCrossContext = "cross_context"
)

// Memory is the part of a stored memory that reconsolidation reads and
// changes. Plans replace whole Memory values, so a rollback is exact.
type Memory struct {
	// ID identifies the memory.
	ID string `json:"id"`
	// Context is the memory's domain (personal, work, ...).
	Context string `json:"context"`
	// Layer is the memory's layer.
	Layer Layer `json:"layer"`
	// Content is the memory's text.
	Content string `json:"content"`
	// Metadata is the memory's JSON metadata, kept byte for byte.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// SourceIDs are the memory's provenance.
	SourceIDs []string `json:"source_ids,omitempty"`
	// Stability is the forgetting model's stability in days.
	Stability float64 `json:"stability"`
	// ConfidenceAlpha is α of the memory's Beta(α, β) confidence.
	ConfidenceAlpha float64 `json:"confidence_alpha"`
	// ConfidenceBeta is β of the memory's Beta(α, β) confidence.
	ConfidenceBeta float64 `json:"confidence_beta"`
	// UpdatedAt is when the memory last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Clone returns a deep copy of m.
func (m Memory) Clone() Memory {
	m.Metadata = bytes.Clone(m.Metadata)
	m.SourceIDs = slices.Clone(m.SourceIDs)
	return m
}

// Equal reports whether m and o hold the same values (metadata compared byte
// for byte, times with time.Time.Equal).
func (m Memory) Equal(o Memory) bool {
	return m.ID == o.ID && m.Context == o.Context && m.Layer == o.Layer && m.Content == o.Content &&
		bytes.Equal(m.Metadata, o.Metadata) && slices.Equal(m.SourceIDs, o.SourceIDs) &&
		eqFloat(m.Stability, o.Stability) && eqFloat(m.ConfidenceAlpha, o.ConfidenceAlpha) &&
		eqFloat(m.ConfidenceBeta, o.ConfidenceBeta) && m.UpdatedAt.Equal(o.UpdatedAt)
}

func eqFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// LabilityWindow is the persisted lability window of one recalled memory.
type LabilityWindow struct {
	// MemoryID identifies the recalled memory.
	MemoryID string `json:"memory_id"`
	// Context is the context the memory was recalled in.
	Context string `json:"context"`
	// OpenedAt is when the recall opened the window.
	OpenedAt time.Time `json:"opened_at"`
	// ClosesAt is when the window closes (OpenedAt + 10 minutes by default).
	ClosesAt time.Time `json:"closes_at"`
}

// OpenAt reports whether the window is open at now: OpenedAt ≤ now < ClosesAt.
func (w LabilityWindow) OpenAt(now time.Time) bool {
	return !now.Before(w.OpenedAt) && now.Before(w.ClosesAt)
}

// Snapshot is the exact state of a memory before a plan, enough to undo it.
type Snapshot struct {
	// Memory is a deep copy of the memory before the plan.
	Memory Memory `json:"memory"`
	// TakenAt is when the snapshot was taken.
	TakenAt time.Time `json:"taken_at"`
	// Neuro are the neuromodulator levels the plan was computed with.
	Neuro Levels `json:"neuro"`
}

// MemoryLink is a link from a memory created by a plan to the old memory.
type MemoryLink struct {
	// ToID is the old memory's id; the link starts at the created memory.
	ToID string `json:"to_id"`
	// Relation is one of RelationContradicts, RelationElaborates,
	// RelationCoOccurs.
	Relation string `json:"relation"`
}

// EditPlan is what reconsolidation decided for one labile memory and the
// exact changes that carry it out. The worker stores the plan (with its
// snapshot) as a reconsolidation event and applies Update and Create in the
// same transaction; [ApplyPlan] is the reference semantics.
type EditPlan struct {
	// MemoryID identifies the memory the plan is about.
	MemoryID string `json:"memory_id"`
	// Mode is the mode the prediction error selects.
	Mode Mode `json:"mode"`
	// Action is what the plan does: Mode, or what a blocked Mode degraded to
	// (ModeNewEpisode or ModeNoop).
	Action Mode `json:"action"`
	// Blocked is true when a gate refused Mode.
	Blocked bool `json:"blocked"`
	// BlockReason is BlockStabilityLock or BlockCrossContext when Blocked.
	BlockReason string `json:"block_reason,omitempty"`
	// RawPE is the token Jaccard distance plus the contradiction penalty,
	// capped at 1.
	RawPE float64 `json:"raw_pe"`
	// EffectivePE is clamp(RawPE·(1 + 0.3·NE − 0.2·5HT), 0, 1).
	EffectivePE float64 `json:"effective_pe"`
	// Resistance is the layer's resistance multiplier.
	Resistance float64 `json:"resistance"`
	// Contradiction is what [DetectContradiction] found.
	Contradiction Contradiction `json:"contradiction"`
	// Snapshot is the memory before the plan.
	Snapshot Snapshot `json:"snapshot"`
	// Update is the memory's full new state, or nil when it is unchanged.
	Update *Memory `json:"update,omitempty"`
	// Create is a memory to insert (its ID is assigned by the store), or nil.
	Create *Memory `json:"create,omitempty"`
	// Link links Create to the old memory when Create is set.
	Link *MemoryLink `json:"link,omitempty"`
	// Hunks are the replacements of a selective edit.
	Hunks []EditHunk `json:"hunks,omitempty"`
}

// ReconsolidationConfig holds the parameters of a [ReconsolidationEngine]. A
// zero field takes its default.
type ReconsolidationConfig struct {
	// Window is the lability window. Defaults to [LabilityWindowDefault]
	// (10 minutes).
	Window time.Duration
	// ContradictionPenalty is added to the raw PE on a contradiction.
	// Defaults to [ContradictionPenaltyDefault] (0.2).
	ContradictionPenalty float64
	// ConfirmedBelow bounds the confirmed band. Defaults to
	// [ConfirmedBelowDefault] (0.1).
	ConfirmedBelow float64
	// SelectiveEditBelow bounds the selective-edit band. Defaults to
	// [SelectiveEditBelowDefault] (0.3).
	SelectiveEditBelow float64
	// IntegrationBelow bounds the integration band. Defaults to
	// [IntegrationBelowDefault] (0.7).
	IntegrationBelow float64
	// ConfirmGrowth is the stability growth per confirmation at learning-rate
	// multiplier 1. Defaults to [ConfirmGrowthDefault] (0.2).
	ConfirmGrowth float64
	// NewEpisodeStability is the stability in days of created memories.
	// Defaults to [NewEpisodeStabilityDefault] (1).
	NewEpisodeStability float64
	// Resistance maps layers to resistance multipliers ≥ 1. Defaults to
	// [DefaultResistance] when nil; a layer missing from the map has 1.
	Resistance map[Layer]float64
}

// WithDefaults returns a copy of c with every zero field set to its default.
func (c *ReconsolidationConfig) WithDefaults() *ReconsolidationConfig {
	if c == nil {
		c = &ReconsolidationConfig{}
	}
	out := &ReconsolidationConfig{
		Window:               cmp.Or(c.Window, LabilityWindowDefault),
		ContradictionPenalty: cmp.Or(c.ContradictionPenalty, ContradictionPenaltyDefault),
		ConfirmedBelow:       cmp.Or(c.ConfirmedBelow, ConfirmedBelowDefault),
		SelectiveEditBelow:   cmp.Or(c.SelectiveEditBelow, SelectiveEditBelowDefault),
		IntegrationBelow:     cmp.Or(c.IntegrationBelow, IntegrationBelowDefault),
		ConfirmGrowth:        cmp.Or(c.ConfirmGrowth, ConfirmGrowthDefault),
		NewEpisodeStability:  cmp.Or(c.NewEpisodeStability, NewEpisodeStabilityDefault),
		Resistance:           c.Resistance,
	}
	if out.Resistance == nil {
		out.Resistance = DefaultResistance()
	} else {
		out.Resistance = maps.Clone(out.Resistance)
	}
	return out
}

func (c *ReconsolidationConfig) validate() error {
	switch {
	case c.Window <= 0:
		return invalidf("ReconsolidationConfig.Window must be positive, got %v", c.Window)
	case !finite(c.ContradictionPenalty) || c.ContradictionPenalty <= 0 || c.ContradictionPenalty > 1:
		return invalidf("ReconsolidationConfig.ContradictionPenalty must be in (0, 1], got %v", c.ContradictionPenalty)
	case !(c.ConfirmedBelow > 0 && c.ConfirmedBelow < c.SelectiveEditBelow &&
		c.SelectiveEditBelow < c.IntegrationBelow && c.IntegrationBelow <= 1):
		return invalidf("ReconsolidationConfig bands must satisfy 0 < ConfirmedBelow < SelectiveEditBelow < IntegrationBelow <= 1, got %v, %v, %v",
			c.ConfirmedBelow, c.SelectiveEditBelow, c.IntegrationBelow)
	case !finite(c.ConfirmGrowth) || c.ConfirmGrowth <= 0 || c.ConfirmGrowth > 2:
		return invalidf("ReconsolidationConfig.ConfirmGrowth must be in (0, 2], got %v", c.ConfirmGrowth)
	case !finite(c.NewEpisodeStability) || c.NewEpisodeStability <= 0:
		return invalidf("ReconsolidationConfig.NewEpisodeStability must be positive, got %v", c.NewEpisodeStability)
	}
	for l, r := range c.Resistance {
		if !finite(r) || r < 1 || r > 10 {
			return invalidf("ReconsolidationConfig.Resistance[%s] must be in [1, 10], got %v", l, r)
		}
	}
	return nil
}

// ReconsolidationInput is one piece of new information about a labile
// memory.
type ReconsolidationInput struct {
	// Window is the memory's lability window.
	Window LabilityWindow
	// Memory is the memory's current state.
	Memory Memory
	// NewContent is the new information; it must contain a word.
	NewContent string
	// NewSourceIDs is the provenance of the new information.
	NewSourceIDs []string
	// Context is the context the new information arrived in; empty means the
	// window's context.
	Context string
	// Neuro are the effective neuromodulator levels at Now; the zero value
	// means baseline (use [BaselineLevels] explicitly when the neuromodulator
	// is switched off).
	Neuro Levels
	// Lock is the memory's stability lock, or nil when it has none.
	Lock *Lock
	// Now is the current time.
	Now time.Time
}

// ReconsolidationEngine plans reconsolidation of labile memories. It holds
// only its configuration and is safe for concurrent use.
type ReconsolidationEngine struct {
	cfg ReconsolidationConfig
}

// NewReconsolidationEngine returns an engine with cfg (nil means all
// defaults).
func NewReconsolidationEngine(cfg *ReconsolidationConfig) (*ReconsolidationEngine, error) {
	c := cfg.WithDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &ReconsolidationEngine{cfg: *c}, nil
}

// OpenWindow returns the lability window that a recall of memory memoryID in
// context ctx opens at now. A recall while a window is open simply replaces
// it, extending the lability.
func (e *ReconsolidationEngine) OpenWindow(memoryID, ctx string, now time.Time) LabilityWindow {
	return LabilityWindow{MemoryID: memoryID, Context: ctx, OpenedAt: now, ClosesAt: now.Add(e.cfg.Window)}
}

// PredictionError returns the raw prediction error of new information
// against a memory's content, RawPE = min(1, (1 − TokenJaccard(old, new)) +
// 0.2·[contradiction]), together with the contradiction found.
func (e *ReconsolidationEngine) PredictionError(old, new string) (float64, Contradiction) {
	d := 1 - textproc.TokenJaccard(old, new)
	c := DetectContradiction(old, new)
	if c.Detected() {
		d += e.cfg.ContradictionPenalty
	}
	return clamp01(d), c
}

// EffectivePE returns clamp(raw·(1 + 0.3·NE − 0.2·5HT), 0, 1): noradrenaline
// (surprise) amplifies the prediction error, serotonin (patience) damps it.
func EffectivePE(raw float64, l Levels) float64 {
	return clamp01(raw * (1 + 0.3*l.NE - 0.2*l.Serotonin))
}

// ModeFor returns the mode of an effective prediction error for a memory of
// resistance r ≥ 1:
//
//	confirmed       PE < 0.1·r
//	selective_edit  PE < 0.3
//	integration     PE < max(0.3, 0.7/r)
//	new_episode     otherwise
//
// (the bounds are the configured bands; r = 1 gives the design's 0.1, 0.3,
// 0.7). A NaN PE counts as 1.
func (e *ReconsolidationEngine) ModeFor(pe, r float64) Mode {
	if math.IsNaN(pe) {
		pe = 1
	}
	r = math.Max(1, r)
	c := e.cfg
	confirmed := math.Min(c.ConfirmedBelow*r, c.SelectiveEditBelow)
	integration := math.Max(c.SelectiveEditBelow, c.IntegrationBelow/r)
	switch {
	case pe < confirmed:
		return ModeConfirmed
	case pe < c.SelectiveEditBelow:
		return ModeSelectiveEdit
	case pe < integration:
		return ModeIntegration
	default:
		return ModeNewEpisode
	}
}

func (e *ReconsolidationEngine) resistance(l Layer) (float64, error) {
	if r, ok := e.cfg.Resistance[l]; ok {
		return r, nil
	}
	switch l {
	case LayerWorking, LayerShortTerm, LayerEpisodic, LayerSemantic, LayerProcedural, LayerCore, LayerCrossContext:
		return 1, nil
	}
	return 0, invalidf("unknown memory layer %q", l)
}

// Plan decides what the new information in in does to the labile memory and
// returns the plan. The steps:
//
//  1. the window must belong to the memory and be open at Now, else
//     [ErrNotLabile];
//  2. new information from another context than the window's gives a
//     blocked no-op plan (BlockCrossContext);
//  3. RawPE from [ReconsolidationEngine.PredictionError], EffectivePE from
//     [EffectivePE] with in.Neuro, the mode from [ReconsolidationEngine.ModeFor]
//     with the layer's resistance;
//  4. the StabilityProtector gate: selective_edit and integration overwrite
//     the memory, so when in.Lock is locked and does not allow EffectivePE
//     ([Lock.CanOverwrite]) the plan is blocked (BlockStabilityLock) and
//     degrades — a blocked integration, or a blocked selective edit that
//     carries a contradiction, becomes a new episode linked to the memory
//     (the information is kept without touching the protected memory); a
//     blocked selective edit without contradiction is a rewording and
//     becomes a no-op;
//  5. the changes of the action:
//     - confirmed: stability ×(1 + 0.2·LearningRate) with LearningRate =
//     0.5 + NE ([OutputsFor]), one confirming observation (α + 1), the new
//     sources added;
//     - selective_edit: content from [EditText] (the changed words replaced
//     in place), the new sources added;
//     - integration: content from [MergeText] and the union of both sources;
//     - new_episode: the memory is unchanged; an episodic memory with the new
//     content and sources is created and linked to it (contradicts when a
//     contradiction was found, elaborates for a degraded integration,
//     co_occurs otherwise).
//
// Every plan carries a snapshot of the memory. Invalid input (empty new
// content, levels outside [0, 1], unknown layer, zero Now) returns an error.
func (e *ReconsolidationEngine) Plan(in ReconsolidationInput) (EditPlan, error) {
	m := in.Memory
	if in.Now.IsZero() {
		return EditPlan{}, invalidf("reconsolidation of memory %q has a zero time", m.ID)
	}
	if in.Window.MemoryID != m.ID || !in.Window.OpenAt(in.Now) {
		return EditPlan{}, ErrNotLabile
	}
	if len(textproc.Tokens(in.NewContent)) == 0 {
		return EditPlan{}, invalidf("new content for memory %q has no words", m.ID)
	}
	neuro := in.Neuro
	if neuro == (Levels{}) {
		neuro = BaselineLevels()
	}
	if err := neuro.Validate(); err != nil {
		return EditPlan{}, err
	}
	r, err := e.resistance(m.Layer)
	if err != nil {
		return EditPlan{}, err
	}
	plan := EditPlan{
		MemoryID:   m.ID,
		Resistance: r,
		Snapshot:   Snapshot{Memory: m.Clone(), TakenAt: in.Now, Neuro: neuro},
	}
	if in.Context != "" && in.Context != in.Window.Context {
		plan.Mode, plan.Action = ModeNoop, ModeNoop
		plan.Blocked, plan.BlockReason = true, BlockCrossContext
		return plan, nil
	}
	plan.RawPE, plan.Contradiction = e.PredictionError(m.Content, in.NewContent)
	plan.EffectivePE = EffectivePE(plan.RawPE, neuro)
	plan.Mode = e.ModeFor(plan.EffectivePE, r)
	plan.Action = plan.Mode

	overwrites := plan.Mode == ModeSelectiveEdit || plan.Mode == ModeIntegration
	if overwrites && in.Lock != nil && !in.Lock.CanOverwrite(plan.EffectivePE) {
		plan.Blocked, plan.BlockReason = true, BlockStabilityLock
		if plan.Mode == ModeIntegration || plan.Contradiction.Detected() {
			plan.Action = ModeNewEpisode
		} else {
			plan.Action = ModeNoop
		}
	}

	upd := m.Clone()
	upd.UpdatedAt = in.Now
	switch plan.Action {
	case ModeConfirmed:
		upd.Stability *= 1 + e.cfg.ConfirmGrowth*OutputsFor(neuro).LearningRate
		upd.ConfidenceAlpha++
		upd.SourceIDs = unionIDs(upd.SourceIDs, in.NewSourceIDs)
		plan.Update = &upd
	case ModeSelectiveEdit:
		upd.Content, plan.Hunks = EditText(m.Content, in.NewContent)
		upd.SourceIDs = unionIDs(upd.SourceIDs, in.NewSourceIDs)
		plan.Update = &upd
	case ModeIntegration:
		upd.Content = MergeText(m.Content, in.NewContent)
		upd.SourceIDs = unionIDs(upd.SourceIDs, in.NewSourceIDs)
		plan.Update = &upd
	case ModeNewEpisode:
		rel := RelationCoOccurs
		switch {
		case plan.Contradiction.Detected():
			rel = RelationContradicts
		case plan.Mode == ModeIntegration:
			rel = RelationElaborates
		}
		plan.Create = &Memory{
			Context:         m.Context,
			Layer:           LayerEpisodic,
			Content:         strings.TrimSpace(in.NewContent),
			SourceIDs:       slices.Clone(in.NewSourceIDs),
			Stability:       e.cfg.NewEpisodeStability,
			ConfidenceAlpha: 1,
			ConfidenceBeta:  1,
			UpdatedAt:       in.Now,
		}
		plan.Link = &MemoryLink{ToID: m.ID, Relation: rel}
	}
	return plan, nil
}

// unionIDs returns a followed by the ids of b not in a, in order.
func unionIDs(a, b []string) []string {
	out := slices.Clone(a)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// ApplyPlan applies plan to the memory's current state and returns the new
// state and the memory to create (nil when none). The current state must
// equal the plan's snapshot ([ErrStaleSnapshot] otherwise), so a plan never
// overwrites a change it did not see.
func ApplyPlan(current Memory, plan EditPlan) (Memory, *Memory, error) {
	if !current.Equal(plan.Snapshot.Memory) {
		return current, nil, ErrStaleSnapshot
	}
	next := current.Clone()
	if plan.Update != nil {
		next = plan.Update.Clone()
	}
	var created *Memory
	if plan.Create != nil {
		c := plan.Create.Clone()
		created = &c
	}
	return next, created, nil
}

// RestorePlan undoes a reconsolidation event.
type RestorePlan struct {
	// MemoryID identifies the memory to restore.
	MemoryID string `json:"memory_id"`
	// Restore is the memory's exact prior state, to be written over it.
	Restore Memory `json:"restore"`
	// DeleteCreated tells the store to delete the memory and link the event
	// created (its id is recorded with the event when the plan is applied);
	// it is a no-op for events that created none.
	DeleteCreated bool `json:"delete_created"`
}

// Rollback returns the plan that restores the state captured in s: the
// memory as it was (content, metadata, sources, stability, confidence,
// timestamps) and the removal of whatever the event created. Rolling back
// twice gives the same state as once.
func Rollback(s Snapshot) RestorePlan {
	return RestorePlan{MemoryID: s.Memory.ID, Restore: s.Memory.Clone(), DeleteCreated: true}
}

// Rollback returns the restore plan of p's snapshot.
func (p EditPlan) Rollback() RestorePlan { return Rollback(p.Snapshot) }

// ApplyRestore returns the memory's state after rp: rp.Restore. A restore
// plan for another memory returns an error.
func ApplyRestore(current Memory, rp RestorePlan) (Memory, error) {
	if current.ID != rp.MemoryID {
		return current, invalidf("restore plan for memory %q applied to memory %q", rp.MemoryID, current.ID)
	}
	return rp.Restore.Clone(), nil
}
