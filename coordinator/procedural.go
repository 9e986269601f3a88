package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/forgetting"
	"github.com/zenbrain/zb/db"
)

// FailureStabilityFactor multiplies a skill's stability after a reported failure.
const FailureStabilityFactor = 0.5

// MinSkillStability is the least stability a failing skill keeps: one hour.
const MinSkillStability = time.Hour

// RecordSkill stores a procedural memory with its trigger, steps and tools. The content is
// "trigger: steps" unless content is given.
func (c *Coordinator) RecordSkill(ctx context.Context, tenant, content string, skill Skill) (*StoreResult, error) {
	if content == "" {
		content = skill.Trigger + ": " + strings.Join(skill.Steps, "; ")
	}
	return c.Store(ctx, StoreInput{TenantID: tenant, Content: content, Layer: LayerProcedural, Kind: "skill", Skill: &skill})
}

// Outcome is the state of a skill after a reported execution.
type Outcome struct {
	// Successes and Failures count the reported executions.
	Successes, Failures int
	// Stability is the new stability in days.
	Stability float64
	// Confidence is the new mean of the skill's Beta belief.
	Confidence float64
}

// ReportOutcome records one execution of a skill: success grows its stability by the forgetting
// model's review growth (as a successful review) and adds 1 to α; failure multiplies stability by
// FailureStabilityFactor (not below MinSkillStability) and adds 1 to β. The fade time is
// recomputed. An unknown skill gives ErrNotFound.
func (c *Coordinator) ReportOutcome(ctx context.Context, tenant string, memoryID int64, success bool) (*Outcome, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	now := c.clock.Now()
	var out Outcome
	err := c.beginTenantPrelude(ctx, tenant, txPrelude{lockTimeout: StoreLockTimeout}, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		counts, err := q.ProcedureRecordOutcome(ctx, db.ProcedureRecordOutcomeParams{TenantID: tenant, MemoryID: memoryID, Success: success, Now: now})
		if err != nil {
			return err
		}
		m, err := q.MemoryGetState(ctx, db.MemoryGetStateParams{TenantID: tenant, ID: memoryID})
		if err != nil {
			return err
		}
		if m.Stability == nil {
			return fmt.Errorf("%w: memory %d has no stability", ErrInvalidInput, memoryID)
		}
		tr, ok := c.trace(m.Layer, *m.Stability, m.Valence, m.Arousal, m.Significance, m.LastAccessedAt)
		if !ok {
			return fmt.Errorf("memory %d has an invalid forgetting state", memoryID)
		}
		alpha, beta := m.ConfAlpha, m.ConfBeta
		if success {
			if tr, err = c.forget.Review(tr, now); err != nil {
				return err
			}
			alpha++
		} else {
			tr.Stability = max(time.Duration(float64(tr.Stability)*FailureStabilityFactor), MinSkillStability)
			if now.After(tr.LastAccess) {
				tr.LastAccess = now
			}
			beta++
		}
		fade, ok, err := tr.FadeAt(forgetting.ArchiveThreshold)
		if err != nil || !ok {
			return fmt.Errorf("error computing fade time: %w", err)
		}
		out = Outcome{
			Successes: int(counts.SuccessCount), Failures: int(counts.FailureCount),
			Stability: tr.Stability.Hours() / 24, Confidence: alpha / (alpha + beta),
		}
		if _, err := q.MemoryOutcomeUpdate(ctx, db.MemoryOutcomeUpdateParams{
			TenantID: tenant, ID: memoryID,
			Stability: out.Stability, FadeAt: fade, Now: now, ConfAlpha: alpha, ConfBeta: beta, Confidence: out.Confidence,
		}); err != nil {
			return err
		}
		detail, _ := json.Marshal(map[string]any{"success": success, "stability_days": out.Stability, "confidence": out.Confidence})
		return q.AuditEventInsert(ctx, db.AuditEventInsertParams{
			TenantID: tenant, At: now, Actor: c.cfg.Actor,
			Action: "memory.outcome", MemoryID: &memoryID, Detail: detail,
		})
	})
	if err != nil {
		return nil, interpretError("reporting skill outcome", err)
	}
	return &out, nil
}
