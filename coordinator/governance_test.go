package coordinator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// Bad input to the erase and governance entry points is refused with ErrInvalidInput before
// anything is written.
func TestGovernanceBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, co := ctxT(t), b.co
	r, err := co.Store(ctx, coordinator.StoreInput{TenantID: "g", Content: "Kept while the input is bad."})
	require.NoError(t, err)
	for name, call := range map[string]func() error{
		"erase tenant id": func() error { _, err := co.Erase(ctx, "bad tenant!", coordinator.ScopeTenant(), nil); return err },
		"erase memory id": func() error { _, err := co.Erase(ctx, "g", coordinator.ScopeMemory(0), nil); return err },
		"erase session":   func() error { _, err := co.Erase(ctx, "g", coordinator.ScopeSession(uuid.Nil), nil); return err },
		"erase context":   func() error { _, err := co.Erase(ctx, "g", coordinator.ScopeContext("Bad Context"), nil); return err },
		"erase scope":     func() error { _, err := co.Erase(ctx, "g", coordinator.EraseScope{Kind: "galaxy"}, nil); return err },
		"erase approval": func() error {
			_, err := co.Erase(ctx, "g", coordinator.ScopeTenant(), &coordinator.EraseOpts{ApprovalID: -1})
			return err
		},
		"erase actor": func() error {
			_, err := co.Erase(ctx, "g", coordinator.ScopeTenant(), &coordinator.EraseOpts{Actor: " "})
			return err
		},
		"erase reason": func() error {
			_, err := co.Erase(ctx, "g", coordinator.ScopeTenant(), &coordinator.EraseOpts{Reason: strings.Repeat("x", 501)})
			return err
		},
		"governance op": func() error {
			return co.SetGovernance(ctx, "g", coordinator.GovernanceSettings{ApprovalRequired: []string{"launch"}})
		},
		"consent subject": func() error { _, err := co.GrantConsent(ctx, "g", coordinator.Consent{Purpose: "memory"}); return err },
		"consent evidence": func() error {
			_, err := co.GrantConsent(ctx, "g", coordinator.Consent{Subject: "s", Purpose: "memory", Evidence: strings.Repeat("e", 5000)})
			return err
		},
		"consent context": func() error {
			_, err := co.GrantConsent(ctx, "g", coordinator.Consent{Subject: "s", Purpose: "memory", Context: "A B"})
			return err
		},
		"revoke purpose":     func() error { _, err := co.RevokeConsent(ctx, "g", "s", ""); return err },
		"retention negative": func() error { return co.SetRetention(ctx, "g", "default", -time.Hour) },
		"retention context":  func() error { return co.SetRetention(ctx, "g", "", time.Hour) },
		"retention limit":    func() error { _, err := co.ApplyRetention(ctx, "g", -1); return err },
		"decide id":          func() error { _, err := co.Decide(ctx, 0, true, "", ""); return err },
		"decide reason":      func() error { _, err := co.Decide(ctx, 1, true, "", strings.Repeat("r", 2000)); return err },
		"approvals status":   func() error { _, err := co.Approvals(ctx, "", "maybe", 0); return err },
		"approvals limit":    func() error { _, err := co.Approvals(ctx, "", "", 100000); return err },
		"store metadata": func() error {
			_, err := co.Store(ctx, coordinator.StoreInput{TenantID: "g", Content: "x", Metadata: map[string]any{"blob": strings.Repeat("m", 70000)}})
			return err
		},
		"store sources": func() error {
			_, err := co.Store(ctx, coordinator.StoreInput{TenantID: "g", Content: "x", SourceIDs: make([]int64, 1001)})
			return err
		},
		"store skill steps": func() error {
			_, err := co.RecordSkill(ctx, "g", "x", coordinator.Skill{Trigger: "t", Steps: make([]string, 101)})
			return err
		},
		"store skill step size": func() error {
			_, err := co.RecordSkill(ctx, "g", "x", coordinator.Skill{Trigger: strings.Repeat("t", 5000)})
			return err
		},
		"recall contexts": func() error {
			cx := make([]string, 101)
			for i := range cx {
				cx[i] = "c"
			}
			_, err := co.Recall(ctx, "g", "anything", &coordinator.RecallOpts{Contexts: cx})
			return err
		},
	} {
		require.ErrorIs(t, call(), coordinator.ErrInvalidInput, name)
	}
	var n int
	require.NoError(t, b.cfg.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM zb.memory) + (SELECT count(*) FROM zb.consent)
		+ (SELECT count(*) FROM zb.retention_policy) + (SELECT count(*) FROM zb.approval_request)`).Scan(&n))
	require.Equal(t, 1, n, "only the memory stored first exists")
	found, err := co.Forget(ctx, "g", r.ID)
	require.NoError(t, err)
	require.True(t, found)
}

// Forget and the SQL API's zb.forget share one erase: the same tombstone, the same audit event,
// and either one finds nothing left after the other.
func TestForgetMatchesSQLForget(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx, co, pool := ctxT(t), b.co, b.cfg.Pool
	tombstone := func(id int64) string {
		var s string
		require.NoError(t, pool.QueryRow(ctx, `SELECT concat_ws('|', status, content, metadata, embedding IS NULL, terms, term_count,
			subject, external_id, source_ids, (SELECT count(*) FROM zb.triple_copy c WHERE c.memory_id = m.id),
			(SELECT count(*) FROM zb.audit_event a WHERE a.memory_id = m.id AND a.action = 'memory.erase'))
			FROM zb.memory m WHERE id = $1`, id).Scan(&s))
		return s
	}
	var ids [2]int64
	for i := range ids {
		r, err := co.Store(ctx, coordinator.StoreInput{
			TenantID: "f", Content: "Bob's bike is red.", ExternalID: uuid.NewString(),
			Metadata: map[string]any{"speaker": "Bob"},
		})
		require.NoError(t, err)
		ids[i] = r.ID
	}
	found, err := co.Forget(ctx, "f", ids[0])
	require.NoError(t, err)
	require.True(t, found)
	var ok bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT zb.forget('f', $1)", ids[1]).Scan(&ok))
	require.True(t, ok)
	require.Equal(t, tombstone(ids[0]), tombstone(ids[1]))
	require.Equal(t, "erased||{}|t|{}|0|{}|0|1", tombstone(ids[0]), "NULL subject and external id are skipped by concat_ws")
	require.NoError(t, pool.QueryRow(ctx, "SELECT zb.forget('f', $1)", ids[0]).Scan(&ok))
	require.False(t, ok)
	found, err = co.Forget(ctx, "f", ids[1])
	require.NoError(t, err)
	require.False(t, found)
}
