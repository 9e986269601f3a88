package coordinator_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
)

// stcDonorsClusterFirst is StcDonors as it was until 4 December 2026: it starts from the tags'
// entity clusters, reads every memory mentioning one of their entities and keeps those activated
// in the window. It defines the expected donors of the activation-first query.
const stcDonorsClusterFirst = `
WITH tags AS (
    SELECT t.memory_id, t.tagged_at FROM zb.stc_tag t
    WHERE t.tenant_id = @tenant_id::text AND t.memory_id = ANY (@tag_ids::bigint[]) AND t.rescued_at IS NULL
), tag_ents AS (
    SELECT g.memory_id AS tag_id, mn.entity_id
    FROM tags g JOIN zb.mention mn ON mn.tenant_id = @tenant_id::text AND mn.memory_id = g.memory_id
), cluster AS (
    SELECT te.tag_id, te.entity_id FROM tag_ents te
    UNION
    SELECT te.tag_id, e.target_id FROM tag_ents te
    JOIN zb.edge e ON e.tenant_id = @tenant_id::text AND e.source_id = te.entity_id AND e.weight >= @min_weight::double precision
    UNION
    SELECT te.tag_id, e.source_id FROM tag_ents te
    JOIN zb.edge e ON e.tenant_id = @tenant_id::text AND e.target_id = te.entity_id AND e.weight >= @min_weight::double precision
), pairs AS (
    SELECT DISTINCT c.tag_id, mn.memory_id AS donor_id
    FROM cluster c JOIN zb.mention mn ON mn.tenant_id = @tenant_id::text AND mn.entity_id = c.entity_id
    WHERE mn.memory_id <> c.tag_id
), strong AS (
    SELECT p.tag_id, p.donor_id, d.confidence, d.created_at, d.last_accessed_at, g.tagged_at
    FROM pairs p
    JOIN tags g ON g.memory_id = p.tag_id
    JOIN zb.memory d ON d.tenant_id = @tenant_id::text AND d.id = p.donor_id
    WHERE d.status = 'active' AND d.confidence > @above::double precision
), acts AS (
    SELECT s.tag_id, s.donor_id, s.confidence, s.tagged_at, s.created_at AS at FROM strong s
    UNION ALL
    SELECT s.tag_id, s.donor_id, s.confidence, s.tagged_at, s.last_accessed_at FROM strong s
    UNION ALL
    SELECT s.tag_id, s.donor_id, s.confidence, s.tagged_at, e.created_at
    FROM strong s
    JOIN zb.recall_event e ON e.tenant_id = @tenant_id::text
        AND e.created_at BETWEEN s.tagged_at - make_interval(secs => @window_seconds::double precision)
                             AND s.tagged_at + make_interval(secs => @window_seconds::double precision)
        AND s.donor_id = ANY (e.result_ids)
)
SELECT DISTINCT ON (a.tag_id, a.donor_id) a.tag_id, a.donor_id, a.confidence, a.at::timestamptz AS activated_at
FROM acts a
WHERE a.at BETWEEN a.tagged_at - make_interval(secs => @window_seconds::double precision)
               AND a.tagged_at + make_interval(secs => @window_seconds::double precision)
  AND a.at <= @now::timestamptz
ORDER BY a.tag_id, a.donor_id, abs(extract(epoch FROM a.at - a.tagged_at)), a.at`

// TestSTCDonorsMatchClusterFirst compares StcDonors with the cluster-first query it replaced on
// a random tenant (memories of every status and confidence, activations by creation, last access
// — a third of them accessed again, so the activation log holds stale times — and recall events,
// entity clusters joined by edges of random weight, rescued and open tags), for random tag sets,
// times, windows and bounds, each of its two ways forced and chosen, the activations read from
// the log, from the tenant, and from both around a pruned horizon: the donors and their
// activations are identical.
func TestSTCDonorsMatchClusterFirst(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := ctxT(t)
	pool := b.cfg.Pool
	const tenant = "stcdiff"
	r := rand.New(rand.NewPCG(4, 12))
	span := 8 * time.Hour
	at := func() time.Time { return t0.Add(time.Duration(r.Int64N(span.Microseconds())) * time.Microsecond) }
	statuses := []string{"active", "active", "active", "active", "active", "active", "archived", "consolidated"}
	confidences := []float64{0.2, 0.5, 0.69, 0.72, 0.9, 0.95}

	const nMem, nEnt = 400, 25
	created, accessed := make([]time.Time, nMem), make([]time.Time, nMem)
	status, content := make([]string, nMem), make([]string, nMem)
	conf := make([]float64, nMem)
	for i := range nMem {
		created[i] = at()
		accessed[i] = created[i]
		if r.IntN(2) == 0 {
			accessed[i] = created[i].Add(time.Duration(r.Int64N(span.Microseconds())) * time.Microsecond)
		}
		status[i], conf[i] = statuses[r.IntN(len(statuses))], confidences[r.IntN(len(confidences))]
		content[i] = fmt.Sprintf("memory %d", i)
	}
	execSQL(t, pool, `INSERT INTO zb.tenant (id) VALUES ($1)`, tenant)
	var ids []int64
	rows, err := pool.Query(ctx, `INSERT INTO zb.memory (tenant_id, layer, kind, content, created_at, updated_at, last_accessed_at,
		stability, status, confidence)
		SELECT $1, 'semantic', 'fact', c, ca, la, la, 7, s::zb.memory_status, cf
		FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::float8[]) AS x(c, ca, la, s, cf)
		RETURNING id`, tenant, content, created, accessed, status, conf)
	require.NoError(t, err)
	ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	require.Len(t, ids, nMem)
	// A third of the memories accessed again later: the activation log (0027) then holds a stale
	// access time for them, which the log's way must not count.
	var moved []int64
	var movedAt []time.Time
	for i := range nMem {
		if r.IntN(3) == 0 {
			accessed[i] = accessed[i].Add(time.Duration(r.Int64N(span.Microseconds())) * time.Microsecond)
			moved, movedAt = append(moved, ids[i]), append(movedAt, accessed[i])
		}
	}
	execSQL(t, pool, `UPDATE zb.memory m SET last_accessed_at = x.at FROM unnest($2::bigint[], $3::timestamptz[]) x(id, at)
		WHERE m.tenant_id = $1 AND m.id = x.id`, tenant, moved, movedAt)

	var ents []int64
	rows, err = pool.Query(ctx, `INSERT INTO zb.entity (tenant_id, name, normalized_name, created_at, updated_at)
		SELECT $1, 'e' || i, 'e' || i, $2, $2 FROM generate_series(1, $3::int) i RETURNING id`, tenant, t0, nEnt)
	require.NoError(t, err)
	ents, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	var mMem, mEnt []int64
	for _, id := range ids {
		for _, e := range r.Perm(nEnt)[:r.IntN(4)] {
			mMem, mEnt = append(mMem, id), append(mEnt, ents[e])
		}
	}
	execSQL(t, pool, `INSERT INTO zb.mention (tenant_id, memory_id, entity_id) SELECT $1, m, e FROM unnest($2::bigint[], $3::bigint[]) x(m, e)`,
		tenant, mMem, mEnt)
	var eSrc, eTgt []int64
	var eW []float64
	seen := map[[2]int]bool{}
	for len(eSrc) < 40 {
		a, c := r.IntN(nEnt), r.IntN(nEnt)
		if a == c || seen[[2]int{a, c}] {
			continue
		}
		seen[[2]int{a, c}] = true
		eSrc, eTgt, eW = append(eSrc, ents[a]), append(eTgt, ents[c]), append(eW, r.Float64())
	}
	execSQL(t, pool, `INSERT INTO zb.edge (tenant_id, source_id, target_id, weight, created_at, last_activated_at)
		SELECT $1, s, g, w, $5, $5 FROM unnest($2::bigint[], $3::bigint[], $4::float8[]) x(s, g, w)`, tenant, eSrc, eTgt, eW, t0)
	for range 120 {
		res := []int64{999999999}
		for range 1 + r.IntN(8) {
			res = append(res, ids[r.IntN(nMem)])
		}
		execSQL(t, pool, `INSERT INTO zb.recall_event (tenant_id, query_hash, query_class, result_ids, created_at)
			VALUES ($1, '\x00', 'general', $2, $3)`, tenant, res, at())
	}
	var tagged []int64
	for _, i := range r.Perm(nMem)[:80] {
		ta := at()
		var rescuedAt, rescuedBy any
		if r.IntN(5) == 0 {
			rescuedAt, rescuedBy = ta.Add(time.Minute), ids[r.IntN(nMem)]
		}
		execSQL(t, pool, `INSERT INTO zb.stc_tag (tenant_id, memory_id, tagged_at, expires_at, strength_before, rescued_at, rescued_by)
			VALUES ($1, $2, $3::timestamptz, $3::timestamptz + interval '30 minutes', 0.1, $4, $5)`, tenant, ids[i], ta, rescuedAt, rescuedBy)
		tagged = append(tagged, ids[i])
	}
	execSQL(t, pool, `ANALYZE zb.memory, zb.mention, zb.edge, zb.recall_event, zb.stc_tag`)

	type donor struct {
		Tag, Donor int64
		Conf       float64
		At         time.Time
	}
	byKind := map[string]int{}
	kind := func(d donor) string {
		i := slices.Index(ids, d.Donor)
		switch {
		case created[i].Equal(d.At):
			return "created"
		case accessed[i].Equal(d.At):
			return "accessed"
		}
		return "recalled"
	}
	total := 0
	for q := range 90 {
		// The activation log's way (0027) for the first 30 queries (when it weighs less than the
		// tenant), the tenant pass (a horizon no span reaches) for the next 30, and for the last
		// 30 the log pruned at half the span: spans that start before it take the tenant pass.
		switch q {
		case 30:
			execSQL(t, pool, `INSERT INTO zb.memory_activation_horizon (tenant_id, horizon) VALUES ($1, 'infinity')`, tenant)
		case 60:
			execSQL(t, pool, `DELETE FROM zb.memory_activation_horizon WHERE tenant_id = $1`, tenant)
			execSQL(t, pool, `SELECT zb.memory_activation_prune($1, $2)`, tenant, t0.Add(span/2))
		}
		tags := slices.Clone(tagged)
		r.Shuffle(len(tags), func(i, j int) { tags[i], tags[j] = tags[j], tags[i] })
		// Half the queries with one to three tags: narrow spans, where the memories' creation
		// times alone do not cover the donors.
		n := 1 + r.IntN(len(tags))
		if q%2 == 1 {
			n = 1 + r.IntN(3)
		}
		tags = append(tags[:n], ids[r.IntN(nMem)])
		// Both ways: from the clusters (cost 0), from the activations (a cost no tenant
		// reaches), and the choice the coordinator makes.
		p := db.StcDonorsParams{
			TenantID:    tenant,
			TagIds:      tags,
			MinWeight:   []float64{0, 0.3, 0.7}[q%3],
			ClusterCost: []float64{0, 1e12, coordinator.STCClusterCost}[(q/3)%3],
			// The log forced (a tiny weight per logged activation) or weighed as the coordinator
			// weighs it against reading the tenant.
			LookupCost:    []float64{1e-6, coordinator.STCActivationLookupCost}[(q/2)%2],
			Above:         []float64{0.7, 0.7, 0.4}[q%3],
			WindowSeconds: []float64{1800, 600, 7200, 1800}[q%4],
			Now:           at().Add(time.Duration(q%2) * span),
		}
		got, err := db.New(pool).StcDonors(ctx, p)
		require.NoError(t, err)
		rows, err := pool.Query(ctx, stcDonorsClusterFirst, pgx.NamedArgs{
			"tenant_id": p.TenantID, "tag_ids": p.TagIds,
			"min_weight": p.MinWeight, "above": p.Above, "window_seconds": p.WindowSeconds, "now": p.Now,
		})
		require.NoError(t, err)
		want, err := pgx.CollectRows(rows, pgx.RowToStructByPos[donor])
		require.NoError(t, err)
		gotD := make([]donor, len(got))
		for i, g := range got {
			gotD[i] = donor{g.TagID, g.DonorID, g.Confidence, g.ActivatedAt}
		}
		order := func(a, b donor) int { return cmp.Or(cmp.Compare(a.Tag, b.Tag), cmp.Compare(a.Donor, b.Donor)) }
		slices.SortFunc(gotD, order)
		slices.SortFunc(want, order)
		require.Equal(t, len(want), len(gotD), "query %d", q)
		for i := range want {
			require.Equal(t, want[i].Tag, gotD[i].Tag, "query %d row %d", q, i)
			require.Equal(t, want[i].Donor, gotD[i].Donor, "query %d row %d", q, i)
			require.Equal(t, want[i].Conf, gotD[i].Conf, "query %d row %d", q, i)
			require.True(t, want[i].At.Equal(gotD[i].At), "query %d row %d: %v vs %v", q, i, want[i].At, gotD[i].At)
			byKind[kind(want[i])]++
		}
		total += len(want)
	}
	// A capture pass's first query switches JIT off for the rest of its transaction, so that
	// the donor search is not compiled inside a recall's side effects.
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SET LOCAL jit = on`)
	require.NoError(t, err)
	open, err := db.New(tx).StcOpenTags(ctx, db.StcOpenTagsParams{TenantID: tenant, FromTime: t0, ToTime: t0.Add(span), Now: t0.Add(span), K: 500})
	require.NoError(t, err)
	require.NotEmpty(t, open)
	var jit string
	require.NoError(t, tx.QueryRow(ctx, `SELECT current_setting('jit')`).Scan(&jit))
	require.Equal(t, "off", jit)

	// The comparison covered every kind of activation, many times.
	t.Logf("%d donor rows compared: %v", total, byKind)
	require.Greater(t, total, 500)
	for _, k := range []string{"created", "accessed", "recalled"} {
		require.Greater(t, byKind[k], 20, k)
	}
}
