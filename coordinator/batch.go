package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/jobs"
)

// MaxBatch is the largest number of memories one StoreBatch call accepts.
const MaxBatch = 100000

// StoreBatch stores many memories through COPY in one transaction (imports and benchmarks):
// every item is validated, routed, tagged and (with an inline embedder) embedded in batches of
// Config.EmbedBatchSize before anything is written, so one bad item writes nothing. Per tenant,
// one derive job (jobs.DeriveArgs{Pending: true}) is enqueued in the same transaction; it also
// runs the supersession check and the triple copies that StoreBatch leaves out. Core and
// working memories and skills need Store (upserts and slots) and are rejected with
// ErrInvalidInput. COPY does not return ids; StoreBatch returns the number of rows written
// (find rows again by ExternalID).
func (c *Coordinator) StoreBatch(ctx context.Context, items []StoreInput) (int64, error) {
	if len(items) == 0 {
		return 0, nil
	}
	if len(items) > MaxBatch {
		return 0, fmt.Errorf("%w: %d items, at most %d", ErrInvalidInput, len(items), MaxBatch)
	}
	now := c.clock.Now()
	ps := make([]*prepared, len(items))
	for i, in := range items {
		p, err := c.prepare(in, now)
		if err != nil {
			return 0, fmt.Errorf("item %d: %w", i, err)
		}
		if p.layer == LayerCore || p.layer == LayerWorking || in.Skill != nil {
			return 0, fmt.Errorf("item %d: %w: core and working memories and skills need Store", i, ErrInvalidInput)
		}
		ps[i] = p
	}
	if err := c.embedPrepared(ctx, ps); err != nil {
		return 0, err
	}
	rows := make([]db.MemoryInsertManyParams, len(ps))
	tenants := map[string]bool{}
	needsEmbedding := map[string]bool{}
	type sessKey struct {
		tenant, context string
		id              uuid.UUID
	}
	sessions := map[sessKey]bool{}
	for i, p := range ps {
		ip := c.insertParams(p)
		rows[i] = db.MemoryInsertManyParams{
			TenantID: ip.TenantID, Context: ip.Context, Layer: db.ZbMemoryLayer(ip.Layer), Kind: ip.Kind, Content: ip.Content,
			SessionID: ip.SessionID, ExternalID: ip.ExternalID, Subject: ip.Subject, Attribute: ip.Attribute,
			OccurredAt: ip.OccurredAt, CreatedAt: now, UpdatedAt: now, LastAccessedAt: now, SourceIDs: ip.SourceIDs,
			Metadata: ip.Metadata, Valence: ip.Valence, Arousal: ip.Arousal, Significance: ip.Significance,
			Importance: ip.Importance, Priority: ip.Priority, Stability: ip.Stability, FadeAt: ip.FadeAt,
			AiGenerated: ip.AiGenerated, Terms: ip.Terms, TermCount: ip.TermCount, EventFrom: ip.EventFrom,
			EventTo: ip.EventTo, ValidFrom: ip.ValidFrom, Embedding: ip.Embedding, EmbeddingModel: ip.EmbeddingModel,
		}
		tenants[p.in.TenantID] = true
		if p.embedding == nil {
			needsEmbedding[p.in.TenantID] = true
		}
		if p.in.SessionID != nil {
			sessions[sessKey{p.in.TenantID, p.context, *p.in.SessionID}] = true
		}
	}
	tenantList := make([]string, 0, len(tenants))
	for t := range tenants {
		tenantList = append(tenantList, t)
	}
	sort.Strings(tenantList)

	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return 0, interpretError("acquiring a connection", err)
	}
	defer conn.Release()
	if err := registerEnums(ctx, conn.Conn()); err != nil {
		return 0, err
	}
	var n int64
	err = c.beginTenantOn(ctx, conn, soleTenant(tenantList), func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		for _, t := range tenantList {
			if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: t}); err != nil {
				return err
			}
		}
		for s := range sessions {
			if err := q.SessionTouch(ctx, db.SessionTouchParams{TenantID: s.tenant, ID: s.id, Context: s.context, Now: now}); err != nil {
				return err
			}
		}
		var err error
		if n, err = insertMemories(ctx, q, rows); err != nil {
			return err
		}
		for _, t := range tenantList {
			cnt := 0
			for _, p := range ps {
				if p.in.TenantID == t {
					cnt++
				}
			}
			detail, _ := json.Marshal(map[string]any{"batch": cnt})
			if err := q.AuditEventInsert(ctx, db.AuditEventInsertParams{
				TenantID: t, At: now, Actor: c.cfg.Actor,
				Action: "memory.store", Detail: detail,
			}); err != nil {
				return err
			}
			if err := c.enqueueDerive(ctx, tx, jobs.DeriveArgs{TenantID: t, Pending: true, NeedsEmbedding: needsEmbedding[t], RecheckSupersede: true}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, interpretError("storing batch", err)
	}
	return n, nil
}

// registerEnums registers zb's enum types on conn for binary COPY.
func registerEnums(ctx context.Context, conn *pgx.Conn) error {
	if _, ok := conn.TypeMap().TypeForName("zb.memory_layer"); ok {
		return nil
	}
	for _, name := range []string{"zb.memory_layer", "zb.memory_status"} {
		t, err := conn.LoadType(ctx, name)
		if err != nil {
			return interpretError("loading type "+name, err)
		}
		conn.TypeMap().RegisterType(t)
	}
	return nil
}
