package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// fixture creates a tenant with one memory (id in $id), an entity pair, a session and an
// applied reconsolidation event, for the constraint cases to point at.
const fixture = `
INSERT INTO zb.tenant (id) VALUES ('a'), ('b');
INSERT INTO zb.session (tenant_id, id, started_at, last_activity_at)
VALUES ('a', '00000000-0000-0000-0000-000000000001', now(), now());
INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability)
OVERRIDING SYSTEM VALUE VALUES ('a', 'semantic', 'the sky is blue', now(), now(), now(), 7);
INSERT INTO zb.entity (tenant_id, name, normalized_name, created_at, updated_at)
VALUES ('a', 'Sky', 'sky', now(), now()), ('a', 'Blue', 'blue', now(), now());
`

func TestConstraintsRejectImpossibleRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: 4})
	_, err := pool.Exec(ctx, fixture)
	require.NoError(t, err)
	var memID, e1, e2 int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT id FROM zb.memory WHERE tenant_id = 'a'").Scan(&memID))
	require.NoError(t, pool.QueryRow(ctx, "SELECT min(id), max(id) FROM zb.entity WHERE tenant_id = 'a'").Scan(&e1, &e2))

	const (
		check   = "23514"
		fk      = "23503"
		notNull = "23502"
		unique  = "23505"
		badEnum = "22P02"
		dataExc = "22000"
		bad     = "P0001"
	)
	mem := "INSERT INTO zb.memory (tenant_id, layer, content, created_at, updated_at, last_accessed_at, stability"
	cases := []struct {
		name, sql, code string
		args            []any
	}{
		{"unknown layer", mem + ") VALUES ('a', 'limbic', 'x', now(), now(), now(), 1)", badEnum, nil},
		{"unknown status", mem + ", status) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 'forgotten')", badEnum, nil},
		{"negative stability", mem + ") VALUES ('a', 'semantic', 'x', now(), now(), now(), -1)", check, nil},
		{"zero stability", mem + ") VALUES ('a', 'semantic', 'x', now(), now(), now(), 0)", check, nil},
		{"non-core without stability", mem + ") VALUES ('a', 'semantic', 'x', now(), now(), now(), NULL)", check, nil},
		{"core without label", mem + ") VALUES ('a', 'core', 'x', now(), now(), now(), NULL)", check, nil},
		{"label on non-core", mem + ", core_label) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 'name')", check, nil},
		{"confidence above 1", mem + ", confidence) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 1.5)", check, nil},
		{"confidence below 0", mem + ", confidence) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, -0.1)", check, nil},
		{"beta alpha zero", mem + ", conf_alpha) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 0)", check, nil},
		{"valence out of range", mem + ", valence) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 2)", check, nil},
		{"arousal negative", mem + ", arousal) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, -0.5)", check, nil},
		{"empty content", mem + ") VALUES ('a', 'semantic', '', now(), now(), now(), 1)", check, nil},
		{"null content", mem + ") VALUES ('a', 'semantic', NULL, now(), now(), now(), 1)", notNull, nil},
		{"unknown kind", mem + ", kind) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 'dream')", check, nil},
		{"negative access count", mem + ", access_count) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, -1)", check, nil},
		{"valid_to before valid_from", mem + ", valid_from, valid_to) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, now(), now() - interval '1 day')", check, nil},
		{"metadata not an object", mem + ", metadata) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, '[1,2]')", check, nil},
		{"unknown tenant", mem + ") VALUES ('nobody', 'semantic', 'x', now(), now(), now(), 1)", fk, nil},
		{"bad context name", mem + ", context) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 'Work Stuff')", check, nil},
		{"session of another tenant", mem + ", session_id) VALUES ('b', 'semantic', 'x', now(), now(), now(), 1, '00000000-0000-0000-0000-000000000001')", fk, nil},
		{"superseded by a missing memory", mem + ", superseded_by) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, 999999999)", fk, nil},
		{"embedding without model", mem + ", embedding) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, '[1,2,3,4]')", check, nil},
		{"embedding of wrong dimension", mem + ", embedding, embedding_model) VALUES ('a', 'semantic', 'x', now(), now(), now(), 1, '[1,2,3]', 'm')", dataExc, nil},
		{"duplicate core label", mem + ", core_label) VALUES ('a', 'core', 'x', now(), now(), now(), NULL, 'name'), ('a', 'core', 'y', now(), now(), now(), NULL, 'name')", unique, nil},
		{"bad tenant id", "INSERT INTO zb.tenant (id) VALUES ('has space')", check, nil},
		{"working slot 8", "INSERT INTO zb.working_slot VALUES ('a', '00000000-0000-0000-0000-000000000001', 8, $1, 0.5, now(), now())", check, []any{memID}},
		{"working slot relevance 2", "INSERT INTO zb.working_slot VALUES ('a', '00000000-0000-0000-0000-000000000001', 1, $1, 2, now(), now())", check, []any{memID}},
		{"review difficulty 11", "INSERT INTO zb.review_state (tenant_id, memory_id, difficulty, due) VALUES ('a', $1, 11, now())", check, []any{memID}},
		{"review state 4", "INSERT INTO zb.review_state (tenant_id, memory_id, state, due) VALUES ('a', $1, 4, now())", check, []any{memID}},
		{"review of a missing memory", "INSERT INTO zb.review_state (tenant_id, memory_id, due) VALUES ('a', 424242, now())", fk, nil},
		{"review grade 5", "INSERT INTO zb.review_log (tenant_id, memory_id, grade, reviewed_at, state_before, interval_days) VALUES ('a', $1, 5, now(), 0, 1)", check, []any{memID}},
		{"vmpfc multiplier 3", "INSERT INTO zb.review_log (tenant_id, memory_id, grade, reviewed_at, state_before, interval_days, multiplier) VALUES ('a', $1, 3, now(), 0, 1, 3)", check, []any{memID}},
		{"edge weight above 10", "INSERT INTO zb.edge (tenant_id, source_id, target_id, weight, created_at, last_activated_at) VALUES ('a', $1, $2, 11, now(), now())", check, []any{e1, e2}},
		{"edge variance below floor", "INSERT INTO zb.edge (tenant_id, source_id, target_id, variance, created_at, last_activated_at) VALUES ('a', $1, $2, 0.001, now(), now())", check, []any{e1, e2}},
		{"edge self loop", "INSERT INTO zb.edge (tenant_id, source_id, target_id, created_at, last_activated_at) VALUES ('a', $1, $1, now(), now())", check, []any{e1}},
		{"edge unknown relation", "INSERT INTO zb.edge (tenant_id, source_id, target_id, relation, created_at, last_activated_at) VALUES ('a', $1, $2, 'loves', now(), now())", badEnum, []any{e1, e2}},
		{"edge to another tenant's entity", "INSERT INTO zb.edge (tenant_id, source_id, target_id, created_at, last_activated_at) VALUES ('b', $1, $2, now(), now())", fk, []any{e1, e2}},
		{"mention span reversed", "INSERT INTO zb.mention VALUES ('a', $1, $2, 5, 2)", check, []any{memID, e1}},
		{"evidence weight zero", "INSERT INTO zb.confidence_evidence (tenant_id, memory_id, kind, weight, created_at) VALUES ('a', $1, 'confirm', 0, now())", check, []any{memID}},
		{"evidence unknown kind", "INSERT INTO zb.confidence_evidence (tenant_id, memory_id, kind, weight, created_at) VALUES ('a', $1, 'rumour', 1, now())", check, []any{memID}},
		{"triple copy unknown", "INSERT INTO zb.triple_copy VALUES ('a', $1, 'ultra', 1, 3600, now())", check, []any{memID}},
		{"triple copy zero tau", "INSERT INTO zb.triple_copy VALUES ('a', $1, 'fast', 1, 0, now())", check, []any{memID}},
		{"dopamine above 1", "INSERT INTO zb.neuromodulator_state (tenant_id, da_tonic, last_tick_at, updated_at) VALUES ('a', 1.2, now(), now())", check, nil},
		{"neuromodulator unknown event", "INSERT INTO zb.neuromodulator_event (tenant_id, event, created_at) VALUES ('a', 'coffee', now())", check, nil},
		{"lability closes before opening", "INSERT INTO zb.lability_window VALUES ('a', $1, now(), now() - interval '1 minute')", check, []any{memID}},
		{"reconsolidation unknown mode", "INSERT INTO zb.reconsolidation_event (tenant_id, memory_id, mode, raw_pe, effective_pe, snapshot, applied_at) VALUES ('a', $1, 'overwrite', 0.2, 0.2, '{}', now())", badEnum, []any{memID}},
		{"reconsolidation negative PE", "INSERT INTO zb.reconsolidation_event (tenant_id, memory_id, mode, raw_pe, effective_pe, snapshot, applied_at) VALUES ('a', $1, 'confirmed', -0.1, 0, '{}', now())", check, []any{memID}},
		{"rollback without reason", "INSERT INTO zb.reconsolidation_event (tenant_id, memory_id, mode, raw_pe, effective_pe, snapshot, applied_at, rolled_back_at) VALUES ('a', $1, 'confirmed', 0.05, 0.05, '{}', now(), now())", check, []any{memID}},
		{"stability lock level 2", "INSERT INTO zb.stability_lock VALUES ('a', $1, 2, 1, 0.6, now())", check, []any{memID}},
		{"stability lock rho below 1", "INSERT INTO zb.stability_lock VALUES ('a', $1, 0.5, 0.9, 0.6, now())", check, []any{memID}},
		{"parameter outside bounds", "INSERT INTO zb.tenant_parameter VALUES ('a', 'decay_floor', 2, 0, 1, now())", check, nil},
		{"time intention without due", "INSERT INTO zb.prospective_intention (tenant_id, content, trigger_kind, created_at) VALUES ('a', 'call mum', 'time', now())", check, nil},
		{"cue intention without cue", "INSERT INTO zb.prospective_intention (tenant_id, content, trigger_kind, created_at) VALUES ('a', 'call mum', 'cue', now())", check, nil},
		{"fired intention without time", "INSERT INTO zb.prospective_intention (tenant_id, content, trigger_kind, due_at, status, created_at) VALUES ('a', 'x', 'time', now(), 'fired', now())", check, nil},
		{"stc tag strength 3", "INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before) VALUES ('a', $1, now(), now() + interval '30 minutes', 3)", check, []any{memID}},
		{"sleep run negative counts", "INSERT INTO zb.sleep_run (tenant_id, seed, started_at, ltp_count) VALUES ('a', 1, now(), -1)", check, nil},
		{"sleep run finishes before start", "INSERT INTO zb.sleep_run (tenant_id, seed, started_at, finished_at) VALUES ('a', 1, now(), now() - interval '1 hour')", check, nil},
		{"debate with one contradiction", "INSERT INTO zb.debate (tenant_id, memory_id, contradicted, positions, outcome, reason, decided_at) VALUES ('a', $1, '{1}', '[]', 'supersede', 'r', now())", check, []any{memID}},
		{"unknown algorithm switch", "INSERT INTO zb.algorithm_switch VALUES ('a', 'telepathy', false, now(), 'x')", check, nil},
		{"bad audit action", "INSERT INTO zb.audit_event (tenant_id, at, actor, action) VALUES ('a', now(), 'x', 'DROP TABLE')", check, nil},
		{"consent revoked before granted", "INSERT INTO zb.consent (tenant_id, subject, purpose, granted_at, revoked_at) VALUES ('a', 's', 'p', now(), now() - interval '1 day')", check, nil},
		{"policy on itself", "INSERT INTO zb.context_policy VALUES ('a', 'work', 'work', true, now())", check, nil},
		{"retention of zero", "INSERT INTO zb.retention_policy VALUES ('a', 'work', interval '0', now())", check, nil},
		{"approval decided while pending", "INSERT INTO zb.approval_request (tenant_id, operation, requested_by, requested_at, decided_at) VALUES ('a', 'tenant_erase', 'x', now(), now())", check, nil},
		{"approval unknown operation", "INSERT INTO zb.approval_request (tenant_id, operation, requested_by, requested_at) VALUES ('a', 'drop_db', 'x', now())", check, nil},
		{"embedding dimension of 0", "UPDATE zb.config SET value = '0' WHERE key = 'embedding_dim'", check, nil},
	}
	for _, tc := range cases {
		_, err := pool.Exec(ctx, tc.sql, tc.args...)
		requireSQLState(t, err, tc.code, tc.name)
	}

	// Deliberate ON DELETE behaviour: deleting a memory cascades to its dependents and clears
	// references to it; deleting a tenant removes all its rows.
	for _, stmt := range []string{
		"INSERT INTO zb.review_state (tenant_id, memory_id, due) VALUES ('a', $1, now())",
		"INSERT INTO zb.mention VALUES ('a', $1, $2, 0, 3)",
		"INSERT INTO zb.triple_copy VALUES ('a', $1, 'fast', 1, 14400, now())",
	} {
		args := []any{memID}
		if strings.Contains(stmt, "$2") {
			args = append(args, e1)
		}
		_, err = pool.Exec(ctx, stmt, args...)
		require.NoError(t, err, stmt)
	}
	var otherID int64
	require.NoError(t, pool.QueryRow(ctx, mem+", superseded_by) VALUES ('a', 'semantic', 'old sky', now(), now(), now(), 1, $1) RETURNING id", memID).Scan(&otherID))
	_, err = pool.Exec(ctx, "DELETE FROM zb.memory WHERE tenant_id = 'a' AND id = $1", memID)
	require.NoError(t, err)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM zb.review_state) + (SELECT count(*) FROM zb.mention) + (SELECT count(*) FROM zb.triple_copy)`).Scan(&n))
	require.Zero(t, n, "dependents of a deleted memory are deleted")
	var sup *int64
	require.NoError(t, pool.QueryRow(ctx, "SELECT superseded_by FROM zb.memory WHERE tenant_id = 'a' AND id = $1", otherID).Scan(&sup))
	require.Nil(t, sup, "a reference to a deleted memory is cleared")

	_, err = pool.Exec(ctx, "DELETE FROM zb.tenant WHERE id = 'a'")
	require.NoError(t, err)
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM zb.memory) + (SELECT count(*) FROM zb.entity) + (SELECT count(*) FROM zb.session)`).Scan(&n))
	require.Zero(t, n, "deleting a tenant removes its rows")
}
