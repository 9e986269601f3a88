package security

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// TestEraseLeavesNothing plants a marker in memories of every kind, lets every mechanism process
// them (derivation with entities and edges, recall, reconsolidation, contradiction and debate,
// propagation, consolidation, sleep, review, decay, a core overwrite audited with its values, an
// approval request holding a value, an export), erases them by memory, session and context, and
// then searches every text, JSON, array and tsvector column of every table in the database
// (zb, river, zb_meta, public ...) for the marker: zero hits. Memories that never held the marker
// survive, the reconsolidated one restored to its earlier text. (TestEraseTenant checks that
// other tenants are untouched.)
func TestEraseLeavesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const marker = "Zorblaxia"
	w := populate(t, e, "tenant-a", marker)
	require.Contains(t, string(w.export), marker, "the export before the erase holds the marker")

	// Planner statistics sample the tables: the marker reaches them too.
	_, err := e.super.Exec(ctx, "ANALYZE")
	require.NoError(t, err)
	before := scanMarker(t, e.super, marker)
	require.Positive(t, before["pg_statistic.zb.memory"], "ANALYZE put the marker into zb.memory's statistics (hits: %v)", before)
	// The marker reached the memories, their index terms and tsvector, the entity graph, the
	// reconsolidation snapshot, the debate, the audit trail, the approval queue and recall's
	// postings (0018).
	for _, col := range []string{
		"zb.memory.content", "zb.memory.content_tsv", "zb.memory.terms", "zb.memory_posting.term", "zb.entity.name",
		"zb.reconsolidation_event.new_content", "zb.debate.positions", "zb.audit_event.detail", "zb.approval_request.payload",
	} {
		require.Positive(t, before[col], "the marker should have reached %s before the erase (hits: %v)", col, before)
	}
	var reconBefore string
	require.NoError(t, e.super.QueryRow(ctx, "SELECT content FROM zb.memory WHERE id = $1", w.recon).Scan(&reconBefore))
	require.Contains(t, reconBefore, marker, "the reconsolidation wrote the trigger's text into the old memory")
	derivesOf := func(id int64) int64 {
		return queryInt(t, e.super, `SELECT count(*) FROM river.river_job WHERE kind = 'zb_derive'
			AND args -> 'memory_ids' @> to_jsonb($1::bigint)`, id)
	}
	derivesBefore := derivesOf(w.recon)

	quietAutovacuum(t, e.super)
	reports := map[string]*coordinator.EraseReport{}
	var dry *coordinator.EraseReport
	for _, s := range []struct {
		name  string
		scope coordinator.EraseScope
	}{
		{"core", coordinator.ScopeMemory(w.core)},
		{"trigger", coordinator.ScopeMemory(w.trigger)},
		{"session", coordinator.ScopeSession(w.session)},
		{"travel", coordinator.ScopeContext("travel")},
	} {
		if s.name == "session" {
			// A dry run counts exactly what the erase then removes, and changes nothing.
			hits := scanMarker(t, e.super, marker)
			var err error
			dry, err = e.co.Erase(ctx, w.tenant, s.scope, &coordinator.EraseOpts{DryRun: true})
			require.NoError(t, err)
			require.True(t, dry.DryRun)
			require.Equal(t, hits, scanMarker(t, e.super, marker), "a dry run changes nothing")
		}
		rep, err := e.co.Erase(ctx, w.tenant, s.scope, &coordinator.EraseOpts{Reason: "gdpr_art17"})
		require.NoError(t, err, s.name)
		reports[s.name] = rep
	}
	require.Equal(t, dry.Counts, reports["session"].Counts, "the dry run counted what the erase removed")
	// The session's turns and the episodes consolidated from them (which carry the session).
	require.Greater(t, reports["session"].Memories+reports["session"].Derived, int64(len(w.turns)))
	require.EqualValues(t, len(w.turns), queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE id = ANY($1) AND status = 'erased'", w.turns))
	require.Zero(t, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND status <> 'erased' AND source_ids && $2",
		w.tenant, w.turns), "nothing derived from the turns is left")
	require.EqualValues(t, 1, reports["trigger"].Restored, "the memory the trigger reconsolidated is restored")
	require.EqualValues(t, 3, reports["travel"].Memories)
	require.Positive(t, reports["travel"].Counts["debate"])
	require.Positive(t, reports["core"].Counts["audit_event"], "the audit payloads about the core memory are scrubbed")
	require.Positive(t, reports["core"].Counts["approval_request"], "the pending overwrite's value is scrubbed")

	// Until the erases' vacuum request is done, dead row versions and statistics still hold it.
	require.NotEmpty(t, tupleMarker(t, e.super, marker), "the erases leave dead row versions until a vacuum")
	requests := map[int64]bool{}
	for _, r := range reports {
		require.Positive(t, r.VacuumRequest, "every erase queues a vacuum")
		requests[r.VacuumRequest] = true
	}
	vac, err := e.co.VacuumErased(ctx, nil)
	require.NoError(t, err)
	for id := range requests {
		require.Contains(t, vac.Requests, id)
	}
	require.Empty(t, scanMarker(t, e.super, marker), "no column of any table, nor any planner statistic, holds the erased marker")
	require.Empty(t, tupleMarker(t, e.super, marker), "no row version, live or dead, holds the erased marker")

	// What never held the marker is intact; the reconsolidated memory has its earlier text and is
	// re-derived by the worker.
	var content, status string
	require.NoError(t, e.super.QueryRow(ctx, "SELECT content, status::text FROM zb.memory WHERE id = $1", w.recon).Scan(&content, &status))
	require.Equal(t, "Tom works at Siemens as an engineer in Munich.", content)
	require.Equal(t, "active", status)
	require.Equal(t, derivesBefore+1, derivesOf(w.recon), "the restored memory is queued for derivation")
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE id = $1 AND status = 'active'", w.plain))

	// The erases are audited with counts and ids, never content; a new export has no marker.
	require.EqualValues(t, 2, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'memory.erase'
		AND detail ->> 'reason_code' = 'gdpr_art17'`, w.tenant))
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'session.erase'`, w.tenant))
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'context.erase'`, w.tenant))
	var buf bytes.Buffer
	_, err = e.co.Export(ctx, w.tenant, &buf, nil)
	require.NoError(t, err)
	require.NotContains(t, strings.ToLower(buf.String()), strings.ToLower(marker))

	// Erasing again finds nothing and writes nothing.
	n := queryInt(t, e.super, "SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1", w.tenant)
	rep, err := e.co.Erase(ctx, w.tenant, coordinator.ScopeMemory(w.core), nil)
	require.NoError(t, err)
	require.Zero(t, rep.Memories)
	found, err := e.co.Forget(ctx, w.tenant, w.trigger)
	require.NoError(t, err)
	require.False(t, found)
	require.Equal(t, n, queryInt(t, e.super, "SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1", w.tenant))
}

// TestEraseTenant erases a whole tenant: every row of it goes from every zb table (its audit
// events stay, scrubbed, with the erase's own event; its logins' bindings stay), its River jobs go, its marker is nowhere,
// and the other tenant keeps every row.
func TestEraseTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	gone := populate(t, e, "tenant-gone", "Plumbrixa")
	stay := populate(t, e, "tenant-stay", "Quimbrelle")
	rowsOf := func(tenant string) map[string]int64 {
		out := map[string]int64{}
		for _, tb := range tenantTables(t, e.super) {
			out[tb.name] = queryInt(t, e.super, "SELECT count(*) FROM zb."+tb.name+" WHERE "+tb.column+" = $1", tenant)
		}
		return out
	}
	_, err := e.super.Exec(ctx, "ANALYZE")
	require.NoError(t, err)
	stayBefore := rowsOf(stay.tenant)
	stayMarker := scanMarker(t, e.super, stay.marker)
	require.Positive(t, scanMarker(t, e.super, gone.marker)["pg_statistic.zb.memory"], "the statistics hold the marker before the erase")

	quietAutovacuum(t, e.super)
	rep, err := e.co.Erase(ctx, gone.tenant, coordinator.ScopeTenant(), nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Counts["tenant"])
	require.Positive(t, rep.Counts["river_job"], "the tenant's queued jobs go")
	for table, n := range rowsOf(gone.tenant) {
		if table == "audit_event" {
			require.Positive(t, n, "the audit trail outlives the tenant")
			continue
		}
		if table == "tenant_binding" {
			// Access control, not tenant data: a login bound to the tenant stays bound to it
			// (else erasing its own tenant would unbind it); operators remove bindings.
			require.Positive(t, n, "populate binds a login to the tenant, and the binding outlives the erase")
			continue
		}
		require.Zero(t, n, "table %s keeps rows of the erased tenant", table)
	}
	require.Zero(t, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND NOT detail @> '{"scrubbed": true}'
		AND action <> 'tenant.erase'`, gone.tenant), "every audit payload of the tenant is scrubbed")
	require.EqualValues(t, 1, queryInt(t, e.super, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = $1 AND action = 'tenant.erase'`, gone.tenant))
	require.Zero(t, queryInt(t, e.super, `SELECT count(*) FROM river.river_job WHERE args ->> 'tenant_id' = $1`, gone.tenant))
	require.Positive(t, rep.VacuumRequest)
	_, err = e.co.VacuumErased(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, scanMarker(t, e.super, gone.marker))
	require.Empty(t, tupleMarker(t, e.super, gone.marker))
	require.Equal(t, stayBefore, rowsOf(stay.tenant))
	stayAfter := scanMarker(t, e.super, stay.marker)
	for k := range stayAfter {
		if strings.HasPrefix(k, "pg_statistic.") {
			delete(stayAfter, k) // re-sampled by the vacuum's ANALYZE
		}
	}
	for k := range stayMarker {
		if strings.HasPrefix(k, "pg_statistic.") {
			delete(stayMarker, k)
		}
	}
	require.Equal(t, stayMarker, stayAfter)
}

// TestEraseSQLPathsLeaveNothing: the SQL entrances of the erase — zb.forget and zb.erase as the
// application role, retention (zb.apply_retention) as the worker — leave the marker in no column,
// planner statistic or row version once their vacuum request is done.
func TestEraseSQLPathsLeaveNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenant, marker = "sql-paths", "Quillomantic"
	ids := e.storeFor(t, tenant,
		"Quillomantic notes: the first secret.",
		"Quillomantic notes: the second secret.",
		"An ordinary memory about tea.")
	old, err := e.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Context: "archive", Content: "Quillomantic archive entry."})
	require.NoError(t, err)
	require.NoError(t, e.co.SetRetention(ctx, tenant, "archive", time.Hour))
	_, err = e.super.Exec(ctx, "ANALYZE")
	require.NoError(t, err)
	require.NotEmpty(t, scanMarker(t, e.super, marker))

	app, _ := e.login(t, "app")
	quietAutovacuum(t, e.super)
	var vacs []int64
	inTenantCommit(t, app, tenant, func(tx pgx.Tx) {
		var erased bool
		require.NoError(t, tx.QueryRow(ctx, "SELECT zb.forget($1, $2)", tenant, ids[0]).Scan(&erased))
		require.True(t, erased)
		var vac int64
		require.NoError(t, tx.QueryRow(ctx, "SELECT (zb.erase($1, 'memory', $2::bigint::text) ->> 'vacuum_request')::bigint", tenant, ids[1]).Scan(&vac))
		vacs = append(vacs, vac)
	})
	wrk, _ := e.login(t, "worker")
	inTenantCommit(t, wrk, tenant, func(tx pgx.Tx) {
		var rep map[string]any
		require.NoError(t, tx.QueryRow(ctx, "SELECT zb.apply_retention($1, now() + interval '1 day')", tenant).Scan(&rep))
		require.EqualValues(t, 1, rep["memory"], "retention erased the archive entry (%d)", old.ID)
	})
	vac, err := e.co.VacuumErased(ctx, nil)
	require.NoError(t, err)
	require.Subset(t, vac.Requests, vacs)
	require.Empty(t, scanMarker(t, e.super, marker))
	require.Empty(t, tupleMarker(t, e.super, marker))
}

// TestEraseFullVacuumLeavesNoBytes: plain VACUUM frees erased row versions but leaves their
// bytes in the pages' free space; VacuumErased with Full (zbctl vacuum --full) rewrites the
// tables and indexes, after which no page of zb's or River's tables, TOAST or indexes holds the
// marker's bytes.
func TestEraseFullVacuumLeavesNoBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const tenant, marker = "full-vac", "Vexillomantra"
	var ids []int64
	for i := range 20 {
		ids = append(ids, e.storeFor(t, tenant, fmt.Sprintf("Vexillomantra page %d: a secret worth erasing.", i))...)
	}
	e.storeFor(t, tenant, "A memory that stays.")
	quietAutovacuum(t, e.super)
	for _, id := range ids {
		_, err := e.co.Erase(ctx, tenant, coordinator.ScopeMemory(id), nil)
		require.NoError(t, err)
	}
	require.NotEmpty(t, pageMarker(t, e.super, marker), "the erased row versions are still in the pages")
	rep, err := e.co.VacuumErased(ctx, &coordinator.VacuumOpts{Full: true})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Requests)
	require.Empty(t, pageMarker(t, e.super, marker), "after VACUUM FULL no page holds the erased bytes")
	require.Empty(t, tupleMarker(t, e.super, marker))
	require.Empty(t, scanMarker(t, e.super, marker))
	require.EqualValues(t, 1, queryInt(t, e.super, "SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND status = 'active'", tenant))
}
