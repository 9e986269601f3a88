package coordinator_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// memSpec describes a memory inserted with plain SQL (as an application would).
type memSpec struct {
	layer, kind, content, context string
	created, lastAccess           time.Time
	stability                     float64 // days; 0 means NULL (core)
	fadeAt                        *time.Time
	embed                         bool
	accessCount                   int
	session                       *uuid.UUID
	sources                       []int64
	ai                            bool
	derived                       bool
	coreLabel                     string
	subject, attribute            string
}

func vecLiteral(v []float32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func insertMem(t *testing.T, pool *pgxpool.Pool, tenant string, s memSpec) int64 {
	t.Helper()
	ctx := ctxT(t)
	_, err := pool.Exec(ctx, `INSERT INTO zb.tenant (id) VALUES ($1) ON CONFLICT DO NOTHING`, tenant)
	require.NoError(t, err)
	if s.session != nil {
		_, err := pool.Exec(ctx, `INSERT INTO zb.session (tenant_id, id, started_at, last_activity_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT DO NOTHING`, tenant, *s.session, s.created)
		require.NoError(t, err)
	}
	if s.layer == "" {
		s.layer = "semantic"
	}
	if s.kind == "" {
		s.kind = "fact"
	}
	if s.context == "" {
		s.context = "default"
	}
	if s.lastAccess.IsZero() {
		s.lastAccess = s.created
	}
	var stab any
	if s.stability > 0 {
		stab = s.stability
	}
	var emb, model any
	if s.embed {
		vs, err := fakeEmbedder{dim: testDim}.Embed(ctx, []string{s.content})
		require.NoError(t, err)
		emb, model = vecLiteral(vs[0]), "fake-bag"
	}
	var derived any
	if s.derived {
		derived = s.created
	}
	var label, subj, attr any
	if s.coreLabel != "" {
		label = s.coreLabel
	}
	if s.subject != "" {
		subj, attr = s.subject, s.attribute
	}
	if s.sources == nil {
		s.sources = []int64{}
	}
	var id int64
	err = pool.QueryRow(ctx, `INSERT INTO zb.memory (tenant_id, context, layer, kind, content, created_at, updated_at,
		last_accessed_at, stability, fade_at, embedding, embedding_model, access_count, session_id, source_ids, ai_generated,
		derived_at, core_label, subject, attribute, occurred_at)
		VALUES ($1, $2, $3::zb.memory_layer, $4, $5, $6, $6, $7, $8, $9, $10::vector, $11, $12, $13, $14, $15, $16, $17, $18, $19, $6)
		RETURNING id`, tenant, s.context, s.layer, s.kind, s.content, s.created, s.lastAccess, stab, s.fadeAt, emb, model,
		s.accessCount, s.session, s.sources, s.ai, derived, label, subj, attr).Scan(&id)
	require.NoError(t, err)
	return id
}

func execSQL(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	_, err := pool.Exec(ctxT(t), sql, args...)
	require.NoError(t, err)
}

func queryInt(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(ctxT(t), sql, args...).Scan(&n))
	return n
}

var snapshotTables = []string{
	"memory", "entity", "mention", "edge", "memory_link", "confidence_evidence", "triple_copy",
	"review_state", "review_log", "debate", "reconsolidation_event", "sleep_run", "session", "lability_window",
	"stability_lock", "audit_event",
}

// tenantState is every lifecycle-relevant row of a tenant plus the River job count, as text.
func tenantState(t *testing.T, pool *pgxpool.Pool, tenant string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range snapshotTables {
		var s string
		require.NoError(t, pool.QueryRow(ctxT(t), fmt.Sprintf(
			`SELECT coalesce(json_agg(x ORDER BY x::text), '[]')::text FROM (SELECT * FROM zb.%s WHERE tenant_id = $1) x`, tb),
			tenant).Scan(&s))
		out[tb] = s
	}
	out["river_job"] = fmt.Sprint(queryInt(t, pool, `SELECT count(*) FROM river.river_job`))
	return out
}

var errHook = errors.New("hook failed")

func failHook(context.Context, pgx.Tx) error { return errHook }

func ptrTime(t time.Time) *time.Time { return &t }

func fmtInt(n int64) string { return fmt.Sprint(n) }

func queryString(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&s))
	return s
}
