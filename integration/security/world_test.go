package security

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
)

// world is what populate stored for one tenant: a marker string planted in memories that every
// mechanism then processes.
type world struct {
	tenant  string
	marker  string
	core    int64     // core memory (label codename) whose value holds the marker, overwritten once
	session uuid.UUID // session whose turns mention the marker, consolidated
	turns   []int64
	recon   int64 // a memory without the marker, edited by a reconsolidation the trigger caused
	trigger int64 // the reconsolidation's trigger, with the marker
	facts   []int64
	plain   int64 // a memory that never meets the marker
	skill   int64
	export  []byte // an export taken before any erase
}

// populate stores memories for tenant and runs every mechanism over them — derivation,
// recall, reconsolidation, contradiction and debate, propagation, consolidation, sleep, review,
// decay, feedback, skills, governance, export — so that every tenant table holds rows of the
// tenant, several of them carrying marker.
func populate(t *testing.T, e *env, tenant, marker string) *world {
	t.Helper()
	ctx, co := ctxT(t), e.co
	w := &world{tenant: tenant, marker: marker}
	tick := func() { e.clock.Add(time.Minute) }
	store := func(in coordinator.StoreInput) *coordinator.StoreResult {
		t.Helper()
		tick()
		in.TenantID = tenant
		r, err := co.Store(ctx, in)
		require.NoError(t, err, in.Content)
		return r
	}

	// Governance records.
	_, err := co.GrantConsent(ctx, tenant, coordinator.Consent{
		Subject: "user", Purpose: coordinator.ConsentPurposeMemory,
		Evidence: "ticked the box",
	})
	require.NoError(t, err)
	require.NoError(t, co.SetRetention(ctx, tenant, "archive", 3650*24*time.Hour))
	_, err = e.super.Exec(ctx, `INSERT INTO zb.context_policy (tenant_id, reader_context, source_context, allowed, updated_at)
		VALUES ($1, 'work', 'default', true, now())`, tenant)
	require.NoError(t, err)

	// Core memory, overwritten once (memory.update keeps old and new value in the audit trail),
	// then an overwrite held back for approval (the request holds the value).
	w.core = store(coordinator.StoreInput{Content: "My codename is " + marker + ".", CoreLabel: "codename"}).ID
	store(coordinator.StoreInput{Content: "My codename is " + marker + " the Second.", CoreLabel: "codename"})
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{ApprovalRequired: []string{coordinator.OpCoreOverwrite}}))
	r := store(coordinator.StoreInput{Content: "My codename is " + marker + " the Third.", CoreLabel: "codename"})
	require.Equal(t, coordinator.OutcomePendingApproval, r.Outcome)
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{}))

	// A conversation that mentions the marker, ended (a consolidation job) and consolidated.
	w.session, err = co.StartSession(ctx, tenant, "")
	require.NoError(t, err)
	for _, text := range []string{
		"Caroline: I met " + marker + " at the climbing gym yesterday.",
		"Melanie: Did " + marker + " like the climbing gym?",
		"Caroline: " + marker + " loved the climbing gym and the coffee there.",
		"Melanie: My favourite color is blue.",
	} {
		w.turns = append(w.turns, store(coordinator.StoreInput{Content: text, SessionID: &w.session}).ID)
	}
	_, err = co.EndSession(ctx, tenant, w.session)
	require.NoError(t, err)
	_, err = co.Consolidate(ctx, tenant, w.session, nil)
	require.NoError(t, err)

	// Working memory, a skill with an outcome, plain facts.
	work, err := co.StartSession(ctx, tenant, "work")
	require.NoError(t, err)
	store(coordinator.StoreInput{Content: "Focus: the quarterly report", Layer: coordinator.LayerWorking, SessionID: &work, Context: "work"})
	tick()
	sk, err := co.RecordSkill(ctx, tenant, "", coordinator.Skill{Trigger: "deploy Zeus", Steps: []string{"make release", "push the image"}, Tools: []string{"make"}})
	require.NoError(t, err)
	w.skill = sk.ID
	_, err = co.ReportOutcome(ctx, tenant, w.skill, true)
	require.NoError(t, err)
	w.plain = store(coordinator.StoreInput{Content: "Bob lives in Porto and sails with Carla on Sundays."}).ID
	store(coordinator.StoreInput{Content: "Carla and Bob bought a boat named Aurora."})
	w.recon = store(coordinator.StoreInput{Content: "Tom works at Siemens as an engineer in Munich."}).ID
	store(coordinator.StoreInput{Content: "Old notes from the archive", Context: "archive"})

	// Facts that contradict each other (a debate) in context travel, stored through the SQL API.
	base := " with her two cats and works as a nurse at the city hospital near " + marker + "."
	for _, city := range []string{"Berlin", "Hamburg"} {
		var id int64
		require.NoError(t, e.super.QueryRow(ctx, "SELECT zb.remember($1, $2, 'semantic', 'travel', '{}', NULL, NULL, NULL, NULL, $3)",
			tenant, "Anna Schmidt lives in "+city+base, e.clock.Now()).Scan(&id))
		w.facts = append(w.facts, id)
	}
	_, err = co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true, NeedsEmbedding: true}, nil)
	require.NoError(t, err)
	tick()
	var n int64
	require.NoError(t, e.super.QueryRow(ctx, "SELECT zb.remember($1, $2, 'semantic', 'travel', '{}', NULL, NULL, NULL, NULL, $3)",
		tenant, "Anna Schmidt lives in Munich"+base, e.clock.Now()).Scan(&n))
	w.facts = append(w.facts, n)
	_, err = co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{n}, NeedsEmbedding: true}, nil)
	require.NoError(t, err)
	_, err = co.Propagate(ctx, tenant, []int64{n}, nil)
	require.NoError(t, err)

	// Recall (the query names the marker: the audit trail keeps only its hash) opens lability
	// windows; a new memory while they are open reconsolidates the old one.
	_, err = co.Recall(ctx, tenant, "Where does Tom work? Ask "+marker, nil)
	require.NoError(t, err)
	w.trigger = store(coordinator.StoreInput{Content: "Tom works at Siemens as a manager in Munich with " + marker + "."}).ID
	rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, MemoryIDs: []int64{w.trigger}}, nil)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Reconsolidations, "the recalled memory is reconsolidated")
	_, err = co.Feedback(ctx, tenant, w.plain, true)
	require.NoError(t, err)

	// Sleep, then a month later reviews and decay.
	_, err = co.Sleep(ctx, tenant, &coordinator.SleepOpts{Trigger: "manual", Seed: 7}, nil)
	require.NoError(t, err)
	e.clock.Add(30 * 24 * time.Hour)
	_, err = co.ReviewDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	_, err = co.DecayDue(ctx, tenant, 0, nil)
	require.NoError(t, err)
	require.NoError(t, co.SetAlgorithm(ctx, tenant, "curiosity", false))

	// Mechanism state the flow above does not reach in a few steps, written directly.
	for _, q := range []string{
		`INSERT INTO zb.tenant_parameter (tenant_id, name, value, min_value, max_value, updated_at) VALUES ($1, 'diversity', 0.5, 0, 1, now())`,
		`INSERT INTO zb.hyperagent_adjustment (tenant_id, parameter, old_value, new_value, reason, applied_at) VALUES ($1, 'diversity', 0.4, 0.5, 'low recall success', now())`,
		`INSERT INTO zb.metacog_event (tenant_id, kind, value, created_at) VALUES ($1, 'recall_bias', 0.3, now())`,
		`INSERT INTO zb.prospective_intention (tenant_id, content, trigger_kind, due_at, created_at) VALUES ($1, 'call the dentist', 'time', now(), now())`,
		`INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before) VALUES ($1, ` + fmt.Sprint(w.plain) + `, now(), now() + interval '1 hour', 0.2) ON CONFLICT DO NOTHING`,
		`INSERT INTO zb.workspace_state (tenant_id, scope, winners, updated_at) VALUES ($1, 'tenant', '{semantic}', now())`, // 0013
		`INSERT INTO zb.import_key (tenant_id, xid, memory_id, imported_at) VALUES ($1, 'ext:plain', ` + fmt.Sprint(w.plain) + `, now())`,
		`INSERT INTO zb.tenant_binding (role_name, tenant_id) VALUES ('someone_' || $1, $1)`,
	} {
		_, err := e.super.Exec(ctx, q, tenant)
		require.NoError(t, err, q)
	}

	var buf bytes.Buffer
	_, err = co.Export(ctx, tenant, &buf, nil)
	require.NoError(t, err)
	w.export = buf.Bytes()
	// Core overwrites wait for an approval from now on.
	require.NoError(t, co.SetGovernance(ctx, tenant, coordinator.GovernanceSettings{ApprovalRequired: []string{coordinator.OpCoreOverwrite}}))
	return w
}
