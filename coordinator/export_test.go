package coordinator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/jobs"
)

// seedExport fills tenant with memories of every kind of state an export carries: an external
// id, a core label, a skill with its procedure, a session with turns, a superseded fact,
// provenance, entities, mentions, edges, a link, FSRS cards, triple copies, an archived and an
// erased memory. It returns the number of memories an export holds (erased ones are left out).
func seedExport(t *testing.T, b *testBundle, pool *pgxpool.Pool, tenant string) int {
	t.Helper()
	ctx := ctxT(t)
	store := func(in coordinator.StoreInput) int64 {
		t.Helper()
		in.TenantID = tenant
		res, err := b.co.Store(ctx, in)
		require.NoError(t, err)
		return res.ID
	}
	a1 := store(coordinator.StoreInput{Content: "Alice lives in Berlin", ExternalID: "a1", Metadata: map[string]any{"source": "chat"}})
	b.clock.Add(time.Hour)
	store(coordinator.StoreInput{Content: "Alice lives in Paris"})
	bob := store(coordinator.StoreInput{Content: "Bob works at Acme with Alice", Importance: 0.9})
	store(coordinator.StoreInput{Content: "My name is Sam", Layer: coordinator.LayerCore, CoreLabel: "name"})
	_, err := b.co.RecordSkill(ctx, tenant, "How to deploy Zeus: build the image, push it",
		coordinator.Skill{Trigger: "deploy Zeus", Steps: []string{"build the image", "push it"}, Tools: []string{"docker"}})
	require.NoError(t, err)
	sess, err := b.co.StartSession(ctx, tenant, "work")
	require.NoError(t, err)
	at := t0.Add(-24 * time.Hour)
	store(coordinator.StoreInput{Content: "We talked about the Zeus release with Bob", SessionID: &sess, OccurredAt: &at, Context: "work"})
	store(coordinator.StoreInput{Content: "Bob said the Zeus release slips a week", SessionID: &sess, OccurredAt: &at, Context: "work"})
	store(coordinator.StoreInput{Content: "Alice and Bob both like Zeus", SourceIDs: []int64{a1, bob}, AIGenerated: true})
	archived := store(coordinator.StoreInput{Content: "Carol once visited Rome"})
	erased := store(coordinator.StoreInput{Content: "Dave's password hint is blue"})
	_, err = b.co.Derive(ctx, jobs.DeriveArgs{TenantID: tenant, Pending: true}, nil)
	require.NoError(t, err)
	execSQL(t, pool, `UPDATE zb.memory SET status = 'archived' WHERE tenant_id = $1 AND id = $2`, tenant, archived)
	execSQL(t, pool, `UPDATE zb.memory SET status = 'erased', content = '' WHERE tenant_id = $1 AND id = $2`, tenant, erased)
	execSQL(t, pool, `INSERT INTO zb.memory_link (tenant_id, source_id, target_id, relation, weight, origin, created_at)
		VALUES ($1, $2, $3, 'supports', 0.7, 'user', $4)`, tenant, bob, a1, t0)
	require.Positive(t, queryInt(t, pool, `SELECT count(*) FROM zb.entity WHERE tenant_id = $1`, tenant))
	require.Positive(t, queryInt(t, pool, `SELECT count(*) FROM zb.edge WHERE tenant_id = $1`, tenant))
	require.Positive(t, queryInt(t, pool, `SELECT count(*) FROM zb.review_state WHERE tenant_id = $1`, tenant))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND superseded_by IS NOT NULL`, tenant))
	return 9
}

// normalized returns an export's records (header left out) with every id replaced by its rank
// among the ids of its record type, so exports of different databases compare equal.
func normalized(t *testing.T, export []byte) []map[string]any {
	t.Helper()
	var recs []map[string]any
	memRank, entRank := map[float64]int{}, map[float64]int{}
	sc := bufio.NewScanner(bytes.NewReader(export))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		switch m["type"] {
		case "header":
			continue
		case "memory":
			memRank[m["id"].(float64)] = len(memRank) + 1
		case "entity":
			entRank[m["id"].(float64)] = len(entRank) + 1
		}
		recs = append(recs, m)
	}
	require.NoError(t, sc.Err())
	rank := func(ranks map[float64]int, v any) any {
		f, ok := v.(float64)
		if !ok {
			return v
		}
		r, found := ranks[f]
		require.True(t, found, "id %v refers to no record of the export", f)
		return r
	}
	for _, m := range recs {
		switch m["type"] {
		case "memory":
			m["id"] = rank(memRank, m["id"])
			if v, ok := m["superseded_by"]; ok {
				m["superseded_by"] = rank(memRank, v)
			}
			if srcs, ok := m["source_ids"].([]any); ok {
				for i := range srcs {
					srcs[i] = rank(memRank, srcs[i])
				}
			}
		case "entity":
			m["id"] = rank(entRank, m["id"])
		case "mention":
			m["memory_id"], m["entity_id"] = rank(memRank, m["memory_id"]), rank(entRank, m["entity_id"])
		case "edge":
			m["source_id"], m["target_id"] = rank(entRank, m["source_id"]), rank(entRank, m["target_id"])
		case "link":
			m["source_id"], m["target_id"] = rank(memRank, m["source_id"]), rank(memRank, m["target_id"])
		case "review_log", "evidence", "reconsolidation":
			delete(m, "id") // the row's own id: a different sequence in each database
			for _, k := range []string{"memory_id", "source_memory_id", "trigger_id", "result_id"} {
				if v, ok := m[k]; ok {
					m[k] = rank(memRank, v)
				}
			}
			if snap, ok := m["snapshot"].(map[string]any); ok {
				if row, ok := snap["row"].(map[string]any); ok {
					if srcs, ok := row["source_ids"].([]any); ok {
						for i := range srcs {
							srcs[i] = rank(memRank, srcs[i])
						}
					}
				}
				if l, ok := snap["link"].(map[string]any); ok {
					l["source_id"], l["target_id"] = rank(memRank, l["source_id"]), rank(memRank, l["target_id"])
				}
			}
		}
	}
	return recs
}

// seedHistory adds to tenant's memory a1 (external id "a1") a review, a piece of evidence from
// the memory "Bob works at Acme" and a rolled-back reconsolidation event it triggered, whose
// snapshot names Bob's memory as a source and the link it created.
func seedHistory(t *testing.T, pool *pgxpool.Pool, tenant string) {
	t.Helper()
	a1 := queryInt(t, pool, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND external_id = 'a1'`, tenant)
	bob := queryInt(t, pool, `SELECT id FROM zb.memory WHERE tenant_id = $1 AND content LIKE 'Bob works at Acme%'`, tenant)
	execSQL(t, pool, `INSERT INTO zb.review_log (tenant_id, memory_id, grade, reviewed_at, state_before, interval_days, vmpfc_pe, multiplier)
		VALUES ($1, $2, 3, $3, 0, 2.5, 0.4, 1.1), ($1, $2, 1, $4, 2, 0.5, NULL, NULL)`, tenant, a1, t0, t0.Add(72*time.Hour))
	execSQL(t, pool, `INSERT INTO zb.confidence_evidence (tenant_id, memory_id, kind, weight, source, source_memory_id, created_at)
		VALUES ($1, $2, 'confirm', 2, 'test', $3, $4)`, tenant, a1, bob, t0)
	snap := fmt.Sprintf(`{"action": "integration", "row": {"content": "Alice lived in Bonn", "source_ids": [%d]},
		"link": {"source_id": %d, "target_id": %d, "relation": "supports"}}`, bob, bob, a1)
	execSQL(t, pool, `INSERT INTO zb.reconsolidation_event (tenant_id, memory_id, trigger_id, mode, raw_pe, effective_pe, contradiction,
		snapshot, new_content, applied_at, rolled_back_at, rollback_reason)
		VALUES ($1, $2, $3, 'integration', 0.4, 0.5, true, $4::jsonb, 'Alice lives in Berlin', $5, $6, 'operator')`,
		tenant, a1, bob, snap, t0, t0.Add(time.Hour))
}

func export(t *testing.T, co *coordinator.Coordinator, tenant string, emb bool) ([]byte, *coordinator.ExportReport) {
	t.Helper()
	var buf bytes.Buffer
	rep, err := co.Export(ctxT(t), tenant, &buf, &coordinator.ExportOpts{Embeddings: emb})
	require.NoError(t, err)
	return buf.Bytes(), rep
}

func tenantCounts(t *testing.T, pool *pgxpool.Pool, tenant string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tb := range []string{
		"memory", "session", "entity", "mention", "edge", "memory_link", "review_state", "procedure",
		"triple_copy", "import_key", "review_log", "confidence_evidence", "reconsolidation_event",
	} {
		out[tb] = queryInt(t, pool, fmt.Sprintf(`SELECT count(*) FROM zb.%s WHERE tenant_id = $1`, tb), tenant)
	}
	return out
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool := b.cfg.Pool
	mems := seedExport(t, b, pool, "src")
	seedHistory(t, pool, "src")
	ctx := ctxT(t)

	out, rep := export(t, b.co, "src", true)
	require.EqualValues(t, mems, rep.Counts.Memories)
	require.EqualValues(t, 2, rep.Counts.ReviewLogs)
	require.EqualValues(t, queryInt(t, pool, `SELECT count(*) FROM zb.confidence_evidence WHERE tenant_id = 'src'`), rep.Counts.Evidence)
	require.GreaterOrEqual(t, rep.Counts.Evidence, int64(1))
	require.EqualValues(t, 1, rep.Counts.Reconsolidations)
	require.Contains(t, string(out), `"type":"reconsolidation"`)
	require.Contains(t, string(out), `"rollback_reason":"operator"`)
	require.Equal(t, int64(len(out)), rep.Bytes)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 1+int(rep.Counts.Total()), "a header and one line per record")
	require.NotContains(t, string(out), "password hint", "erased memories are not exported")
	require.Contains(t, lines[0], `"format":"zenbrain-export"`)
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.audit_event WHERE tenant_id = 'src' AND action = 'tenant.export'
		AND (detail -> 'counts' ->> 'memories')::int = $1`, mems))

	// Into another tenant of the same database, and into another database.
	pool2 := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: testDim})
	co2, err := coordinator.New(&coordinator.Config{Pool: pool2, Embedder: fakeEmbedder{dim: testDim}, Clock: b.clock})
	require.NoError(t, err)
	for _, dst := range []struct {
		co   *coordinator.Coordinator
		pool *pgxpool.Pool
	}{{b.co, pool}, {co2, pool2}} {
		irep, err := dst.co.Import(ctx, "dst", bytes.NewReader(out), nil)
		require.NoError(t, err)
		require.EqualValues(t, mems, irep.Imported.Memories)
		require.EqualValues(t, mems, irep.EmbeddingsKept, "same dimension and no active model: embeddings are kept")
		require.Zero(t, irep.Existing)
		require.Zero(t, irep.Unresolved)
		require.EqualValues(t, 2, irep.Relinked, "the fact with sources and the superseded fact")
		require.Equal(t, rep.Counts.ReviewLogs, irep.Imported.ReviewLogs)
		require.Equal(t, rep.Counts.Evidence, irep.Imported.Evidence)
		require.EqualValues(t, 1, irep.Imported.Reconsolidations)
		back, _ := export(t, dst.co, "dst", true)
		require.Equal(t, normalized(t, out), normalized(t, back), "export → import → export gives the same records")

		// Running it again adds nothing.
		before := tenantCounts(t, dst.pool, "dst")
		irep, err = dst.co.Import(ctx, "dst", bytes.NewReader(out), &coordinator.ImportOpts{BatchSize: 4})
		require.NoError(t, err)
		require.Zero(t, irep.Imported.Memories)
		require.Zero(t, irep.Imported.ReviewLogs+irep.Imported.Evidence+irep.Imported.Reconsolidations, "history is written once")
		require.EqualValues(t, mems, irep.Existing)
		require.Equal(t, before, tenantCounts(t, dst.pool, "dst"))
	}

	// The imported state is usable: recall finds an imported memory by vector and by BM25.
	rec, err := co2.Recall(ctx, "dst", "Where does Alice live?", &coordinator.RecallOpts{K: 3, ReadOnly: true})
	require.NoError(t, err)
	require.NotEmpty(t, rec.Results)
	require.Contains(t, rec.Results[0].Content, "Alice lives in")
	require.True(t, rec.Results[0].ByVector)
}

func TestImportResumesAfterInterruption(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool := b.cfg.Pool
	mems := seedExport(t, b, pool, "src")
	out, _ := export(t, b.co, "src", false)

	// Cancel after the first batch of 3 records committed.
	ctx, cancel := context.WithCancel(ctxT(t))
	batches := 0
	_, err := b.co.Import(ctx, "dst", bytes.NewReader(out), &coordinator.ImportOpts{
		BatchSize: 3,
		Progress: func(phase string, done, total int64) {
			if phase == coordinator.PhaseImport {
				batches++
				cancel()
			}
		},
	})
	require.Error(t, err)
	require.Equal(t, 1, batches)
	var be *coordinator.ImportBatchError
	require.ErrorAs(t, err, &be)
	partial := tenantCounts(t, pool, "dst")
	require.Less(t, partial["memory"], mems)

	rep, err := b.co.Import(ctxT(t), "dst", bytes.NewReader(out), &coordinator.ImportOpts{BatchSize: 3})
	require.NoError(t, err)
	require.EqualValues(t, mems, int64(partial["memory"])+rep.Imported.Memories)
	require.EqualValues(t, partial["memory"], rep.Existing)
	require.EqualValues(t, mems, rep.EmbeddingsQueued+rep.Existing, "no embeddings in the file: all are queued")
	require.Equal(t, mems, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'dst'`))
	back, _ := export(t, b.co, "dst", false)
	require.Equal(t, normalized(t, out), normalized(t, back))

	// The queued re-embedding jobs give every imported memory an embedding of the worker's model.
	ids := queryString(t, pool, `SELECT string_agg(args::text, '|') FROM river.river_job WHERE kind = 'zb_reembed'`)
	for _, raw := range strings.Split(ids, "|") {
		var args jobs.ReembedArgs
		require.NoError(t, json.Unmarshal([]byte(raw), &args))
		_, err := b.co.Reembed(ctxT(t), args, nil)
		require.NoError(t, err)
	}
	require.Equal(t, mems, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'dst' AND embedding_model = 'fake-bag'`))
}

func TestImportRejectsBadLines(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	pool := b.cfg.Pool
	ctx := ctxT(t)
	good := `{"type":"memory","id":1,"layer":"semantic","content":"Erin likes tea","created_at":"2024-05-01T10:00:00Z"}`
	file := strings.Join([]string{
		`{"type":"header","format":"zenbrain-export","version":1,"tenant":"x","origin":"o/x","exported_at":"2024-05-02T00:00:00Z","embedding_dim":64,"embeddings":false,"counts":{"sessions":0,"entities":0,"memories":2,"mentions":0,"edges":0,"links":0}}`,
		good,
		`{not json`,
		`{"type":"memory","id":2,"layer":"limbic","content":"x","created_at":"2024-05-01T10:00:00Z"}`,
		``,
		`{"type":"mention","memory_id":7,"entity_id":1}`,
		`{"type":"memory","id":3,"layer":"semantic","content":"y","created_at":"2024-05-01T10:00:00Z","colour":"red"}`,
	}, "\n")
	_, err := b.co.Import(ctx, "bad", strings.NewReader(file), nil)
	var ie *coordinator.ImportError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, coordinator.ErrInvalidInput)
	var lines []int
	for _, l := range ie.Lines {
		lines = append(lines, l.Line)
	}
	require.Equal(t, []int{3, 4, 6, 7}, lines, err.Error())
	require.Contains(t, err.Error(), "limbic")
	require.Contains(t, err.Error(), "memory 7")
	require.Contains(t, err.Error(), "colour")
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'bad'`), "nothing is written")

	// A dry run validates and writes nothing.
	rep, err := b.co.Import(ctx, "dry", strings.NewReader(good+"\n"), &coordinator.ImportOpts{DryRun: true})
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Records.Memories)
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.tenant WHERE id = 'dry'`))

	// A record the database refuses rolls its whole batch back and names its line: two memories
	// with the same external id under different keys.
	dup := strings.Join([]string{
		`{"type":"memory","id":1,"layer":"semantic","content":"first","created_at":"2024-05-01T10:00:00Z"}`,
		`{"type":"memory","id":2,"layer":"semantic","content":"second","external_id":"e","created_at":"2024-05-01T10:00:00Z"}`,
		`{"type":"memory","id":3,"xid":"other","layer":"semantic","content":"third","external_id":"e","created_at":"2024-05-01T10:00:00Z"}`,
	}, "\n")
	_, err = b.co.Import(ctx, "dup", strings.NewReader(dup), nil)
	var be *coordinator.ImportBatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, [2]int{1, 3}, [2]int{be.FirstLine, be.LastLine})
	var le *coordinator.LineError
	require.ErrorAs(t, err, &le)
	require.Equal(t, 3, le.Line)
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'dup'`), "the batch left nothing behind")

	// Records without ids or keys are keyed by a content hash: importing them twice adds nothing.
	plain := `{"type":"memory","layer":"episodic","content":"Frank ran a marathon","created_at":"2024-04-01T08:00:00Z"}`
	for range 2 {
		_, err := b.co.Import(ctx, "plain", strings.NewReader(plain), nil)
		require.NoError(t, err)
	}
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'plain'`))
	require.Equal(t, 1, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'plain' AND stability > 0 AND fade_at IS NOT NULL`),
		"a record without forgetting state gets the layer's initial stability")

	// History records are validated like the others: each bad one is reported with its line.
	hist := strings.Join([]string{
		good,
		`{"type":"review_log","memory_id":1,"grade":7,"reviewed_at":"2024-05-02T00:00:00Z","state_before":0,"interval_days":1}`,
		`{"type":"evidence","memory_id":9,"kind":"confirm","weight":1,"created_at":"2024-05-02T00:00:00Z"}`,
		`{"type":"evidence","memory_id":1,"kind":"rumour","weight":1,"created_at":"2024-05-02T00:00:00Z"}`,
		`{"type":"reconsolidation","memory_id":1,"mode":"integration","raw_pe":0.2,"effective_pe":0.2,"snapshot":[1],"applied_at":"2024-05-02T00:00:00Z"}`,
		`{"type":"review_log","memory_id":1,"grade":3,"reviewed_at":"2024-05-02T00:00:00Z","state_before":0,"interval_days":1}`,
	}, "\n")
	_, err = b.co.Import(ctx, "hist", strings.NewReader(hist), nil)
	require.ErrorAs(t, err, &ie)
	lines = lines[:0]
	for _, l := range ie.Lines {
		lines = append(lines, l.Line)
	}
	require.Equal(t, []int{2, 3, 4, 5}, lines, err.Error())
	for _, s := range []string{"grade must be in [1, 4]", "memory 9", "rumour", "snapshot must be a JSON object"} {
		require.Contains(t, err.Error(), s)
	}
	require.Zero(t, queryInt(t, pool, `SELECT count(*) FROM zb.memory WHERE tenant_id = 'hist'`), "nothing is written")

	_, err = b.co.Export(ctx, "nobody", &bytes.Buffer{}, nil)
	require.True(t, errors.Is(err, coordinator.ErrNotFound), "%v", err)
}
