/*
 * zb_lexical: the lexical half of zenbrain's recall, compiled.
 *
 * zb.lexical_topk reads each query term's postings once through the primary key of
 * zb.memory_posting (tenant_id, term, layer, memory_id) INCLUDE (tf, dl, session_id, valid_to),
 * index-only where the visibility map allows and through the heap where it does not, exactly as
 * an index-only scan does. From one read it counts the term's document frequency and distinct
 * sessions (all postings of the tenant, as zb.recall_lexical_postings counts them), keeps the
 * postings of the requested layers still valid at p_at, and then merges the terms' postings of
 * each layer in memory order (each (term, layer) range of the key is in memory order), summing
 * every memory's BM25 (k1 1.2, b 0.75) and keeping the best p_k per layer.
 *
 * A filtered recall (a time range, an as-of time, contexts: columns only zb.memory holds) ranks
 * every scored memory of a layer and reads their zb.memory rows through its primary key, best
 * first, until p_k pass recall's filters — the filters of zb.recall_lexical_postings_sql, written
 * out in C below.
 *
 * Every value is computed with the operations the SQL path uses, in the same order: idf with
 * numeric arithmetic, sidf and each term's part in double precision, each part rounded to a
 * multiple of 2^-40 (so that the sum is exact in any order), ties by memory id. The tests compare
 * the two paths bit for bit.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_MODULE_MAGIC;

#define ZB_LEXICAL_VERSION "1.0"

/* The postings' primary key, as 0018 defines it: key columns, then the included ones. */
#define A_TENANT 0
#define A_TERM 1
#define A_LAYER 2
#define A_MEMORY 3
#define A_TF 4
#define A_DL 5
#define A_SESSION 6
#define A_VALID_TO 7
#define N_ATTS 8

static const char *const attnames[N_ATTS] = {
	"tenant_id", "term", "layer", "memory_id", "tf", "dl", "session_id", "valid_to"
};

/* 2^40: each term's part is rounded to a multiple of its inverse. */
#define GRID 1099511627776.0

typedef struct Posting
{
	int64		memory_id;
	int32		tf;
	int32		dl;
} Posting;

/* One distinct term: its postings in requested layers, still valid, in key order. */
typedef struct Term
{
	Datum		text;
	bool		null;
	int64		df;
	int64		sdf;
	Posting    *postings;
	int			npostings;
	int			cap;
	/* per requested layer: the range [start, end) of postings */
	int		   *start;
	int		   *end;
	double		weight;			/* idf */
} Term;

/* A set of session ids (open addressing; 16-byte keys, all-zero slot = empty, zero uuid kept apart). */
typedef struct UuidSet
{
	pg_uuid_t  *slots;
	uint32		mask;
	uint32		used;
	bool		has_zero;
} UuidSet;

static void
uuidset_init(UuidSet *s, uint32 cap)
{
	uint32		n = 1024;

	while (n < cap * 2)
		n <<= 1;
	s->slots = palloc0(sizeof(pg_uuid_t) * n);
	s->mask = n - 1;
	s->used = 0;
	s->has_zero = false;
}

static bool
uuid_is_zero(const pg_uuid_t *u)
{
	static const pg_uuid_t zero = {{0}};

	return memcmp(u->data, zero.data, UUID_LEN) == 0;
}

static void uuidset_add(UuidSet *s, const pg_uuid_t *u);

static void
uuidset_grow(UuidSet *s)
{
	pg_uuid_t  *old = s->slots;
	uint32		n = s->mask + 1;
	uint32		i;

	s->slots = palloc0(sizeof(pg_uuid_t) * n * 2);
	s->mask = n * 2 - 1;
	s->used = 0;
	for (i = 0; i < n; i++)
		if (!uuid_is_zero(&old[i]))
			uuidset_add(s, &old[i]);
	pfree(old);
}

static void
uuidset_add(UuidSet *s, const pg_uuid_t *u)
{
	uint32		h;

	if (uuid_is_zero(u))
	{
		s->has_zero = true;
		return;
	}
	if ((s->used + 1) * 2 > s->mask + 1)
		uuidset_grow(s);
	h = hash_bytes(u->data, UUID_LEN) & s->mask;
	for (;;)
	{
		pg_uuid_t  *slot = &s->slots[h];

		if (uuid_is_zero(slot))
		{
			memcpy(slot->data, u->data, UUID_LEN);
			s->used++;
			return;
		}
		if (memcmp(slot->data, u->data, UUID_LEN) == 0)
			return;
		h = (h + 1) & s->mask;
	}
}

/* idf as zb.recall_lexical_postings writes it: ln(1 + (n - df + 0.5) / (df + 0.5)), in numeric. */
static double
idf_numeric(int64 n, int64 df)
{
	Datum		half = DirectFunctionCall3(numeric_in, CStringGetDatum("0.5"), ObjectIdGetDatum(InvalidOid),
										   Int32GetDatum(-1));
	Datum		one = DirectFunctionCall1(int4_numeric, Int32GetDatum(1));
	Datum		diff = DirectFunctionCall2(int8mi, Int64GetDatum(n), Int64GetDatum(df));
	Datum		num = DirectFunctionCall2(numeric_add, DirectFunctionCall1(int8_numeric, diff), half);
	Datum		den = DirectFunctionCall2(numeric_add, DirectFunctionCall1(int8_numeric, Int64GetDatum(df)), half);
	Datum		q = DirectFunctionCall2(numeric_div, num, den);
	Datum		arg = DirectFunctionCall2(numeric_add, one, q);

	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, DirectFunctionCall1(numeric_ln, arg)));
}

/* sidf: ln(1 + (greatest(sn, sdf) - sdf + 0.5) / (sdf + 0.5)), double precision except sdf + 0.5. */
static double
sidf_float(double sn, int64 sdf)
{
	double		s = (double) sdf;
	double		g = float8_gt(sn, s) ? sn : s;	/* greatest(): NaN sorts above every number */
	Datum		den = DirectFunctionCall2(numeric_add, DirectFunctionCall1(int8_numeric, Int64GetDatum(sdf)),
										  DirectFunctionCall3(numeric_in, CStringGetDatum("0.5"),
															  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	double		x = float8_pl(float8_mi(g, s), 0.5);
	double		r = float8_div(x, DatumGetFloat8(DirectFunctionCall1(numeric_float8, den)));
	double		z = float8_pl(1.0, r);

	return DatumGetFloat8(DirectFunctionCall1(dlog1, Float8GetDatum(z)));
}

/* One term's BM25 part for a posting, rounded to the 2^-40 grid (zb.recall_lexical_merge's expression). */
static inline double
part(double w, int32 tf, int32 dl, double avgdl_floor)
{
	double		k1p1 = 1.2 + (double) 1;
	double		norm = ((double) 1 - 0.75) + (0.75 * (double) dl) / avgdl_floor;
	double		den = (double) tf + 1.2 * norm;
	double		p = ((w * (double) tf) * k1p1) / den;

	return rint(p * GRID) / GRID;
}

typedef struct Pick
{
	double		score;
	int64		id;
} Pick;

/* a is worse than b: lower score, or the same score and a higher id. */
static inline bool
worse(const Pick *a, const Pick *b)
{
	if (a->score != b->score)
		return a->score < b->score;
	return a->id > b->id;
}

/* a ranks before b: higher score, or the same score and a lower id. */
static inline bool
better(const Pick *a, const Pick *b)
{
	if (a->score != b->score)
		return a->score > b->score;
	return a->id < b->id;
}

/* Restore the heap h[0..n) below i, where first(a, b) says a belongs nearer the root. */
static void
sift_down(Pick *h, int n, int i, bool (*first) (const Pick *, const Pick *))
{
	Pick		c = h[i];

	for (;;)
	{
		int			l = 2 * i + 1,
					r = l + 1,
					m = i;
		const Pick *mv = &c;

		if (l < n && first(&h[l], mv))
		{
			m = l;
			mv = &h[l];
		}
		if (r < n && first(&h[r], mv))
		{
			m = r;
			mv = &h[r];
		}
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = c;
}

/* Keep the best k picks in a heap whose root is the worst of them. */
static void
heap_offer(Pick *heap, int *n, int k, Pick c)
{
	int			i;

	if (k <= 0)
		return;
	if (*n < k)
	{
		i = (*n)++;
		while (i > 0)
		{
			int			p = (i - 1) / 2;

			if (!worse(&c, &heap[p]))
				break;
			heap[i] = heap[p];
			i = p;
		}
		heap[i] = c;
		return;
	}
	if (!worse(&heap[0], &c))
		return;
	heap[0] = c;
	sift_down(heap, *n, 0, worse);
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a,
				y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/* recall's filters on zb.memory rows (zb.recall_lexical_postings_sql's EXISTS clause) */
typedef struct Filter
{
	bool		has_from,
				has_to,
				has_as_of;
	TimestampTz from,
				to,
				as_of;
	Datum	   *contexts;		/* NULL: no contexts filter */
	int			ncontexts;
	Oid			collation;		/* of zb.memory.context */
	Datum		active;			/* zb.memory_status 'active' */
	Datum		core;			/* zb.memory_layer 'core' */
	AttrNumber	a_status,
				a_valid_from,
				a_created_at,
				a_context,
				a_layer,
				a_event_to,
				a_occurred_at,
				a_event_from;
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Datum		tenant;
} Filter;

static AttrNumber
memory_attnum(Relation rel, const char *name, Oid type)
{
	AttrNumber	a = get_attnum(RelationGetRelid(rel), name);

	if (a == InvalidAttrNumber || TupleDescAttr(RelationGetDescr(rel), a - 1)->atttypid != type)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: zb.memory has no column \"%s\" of type %s, which this library was built for",
							   name, format_type_be(type)),
						errhint("Update the zb_lexical extension to the schema's version.")));
	return a;
}

/*
 * Open table zb.<name> and its primary key for reading, after checking that the user may SELECT
 * from it.
 */
static Relation
open_zb_table(const char *name, Relation *index)
{
	Oid			relid = get_relname_relid(name, get_namespace_oid("zb", false));
	Relation	heap;
	Oid			pk;
	AclResult	acl;

	if (!OidIsValid(relid))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("zb.lexical_topk: table zb.%s does not exist", name)));
	acl = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_TABLE, name);
	heap = table_open(relid, AccessShareLock);
	pk = RelationGetPrimaryKeyIndex(heap);
	if (!OidIsValid(pk))
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: zb.%s has no primary key", name)));
	*index = index_open(pk, AccessShareLock);
	return heap;
}

static void
filter_open(Filter *f, Datum tenant, Snapshot snapshot)
{
	Oid			nsp = get_namespace_oid("zb", false);
	Oid			status_type,
				layer_type;

	f->heap = open_zb_table("memory", &f->index);
	if (IndexRelationGetNumberOfKeyAttributes(f->index) != 2 || f->index->rd_rel->relam != BTREE_AM_OID ||
		strcmp(NameStr(TupleDescAttr(RelationGetDescr(f->index), 0)->attname), "tenant_id") != 0 ||
		strcmp(NameStr(TupleDescAttr(RelationGetDescr(f->index), 1)->attname), "id") != 0 ||
		TupleDescAttr(RelationGetDescr(f->index), 1)->atttypid != INT8OID)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: the primary key of zb.memory is not (tenant_id, id), which this library was built for")));
	status_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("memory_status"), ObjectIdGetDatum(nsp));
	layer_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("memory_layer"), ObjectIdGetDatum(nsp));
	if (!OidIsValid(status_type) || !OidIsValid(layer_type))
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: the types zb.memory_status and zb.memory_layer must exist")));
	f->a_status = memory_attnum(f->heap, "status", status_type);
	f->a_layer = memory_attnum(f->heap, "layer", layer_type);
	f->a_valid_from = memory_attnum(f->heap, "valid_from", TIMESTAMPTZOID);
	f->a_created_at = memory_attnum(f->heap, "created_at", TIMESTAMPTZOID);
	f->a_context = memory_attnum(f->heap, "context", TEXTOID);
	f->a_event_to = memory_attnum(f->heap, "event_to", TIMESTAMPTZOID);
	f->a_occurred_at = memory_attnum(f->heap, "occurred_at", TIMESTAMPTZOID);
	f->a_event_from = memory_attnum(f->heap, "event_from", TIMESTAMPTZOID);
	f->collation = TupleDescAttr(RelationGetDescr(f->heap), f->a_context - 1)->attcollation;
	f->active = DirectFunctionCall2(enum_in, CStringGetDatum("active"), ObjectIdGetDatum(status_type));
	f->core = DirectFunctionCall2(enum_in, CStringGetDatum("core"), ObjectIdGetDatum(layer_type));
	f->tenant = tenant;
	f->slot = table_slot_create(f->heap, NULL);
	/* keyed at each probe (filter_passes) */
	f->scan = index_beginscan(f->heap, f->index, snapshot, 2, 0);
}

static void
filter_close(Filter *f)
{
	if (f->scan == NULL)
		return;
	index_endscan(f->scan);
	ExecDropSingleTupleTableSlot(f->slot);
	index_close(f->index, AccessShareLock);
	table_close(f->heap, AccessShareLock);
	f->scan = NULL;
}

/* The memory's visible row passes recall's filters. */
static bool
filter_passes(Filter *f, int64 id)
{
	ScanKeyData keys[2];
	bool		isnull,
				core,
				ok = true;
	Datum		d;

	ScanKeyEntryInitialize(&keys[0], 0, 1, BTEqualStrategyNumber, InvalidOid, f->index->rd_indcollation[0], F_TEXTEQ, f->tenant);
	ScanKeyEntryInitialize(&keys[1], 0, 2, BTEqualStrategyNumber, InvalidOid, InvalidOid, F_INT8EQ, Int64GetDatum(id));
	index_rescan(f->scan, keys, 2, NULL, 0);
	if (!index_getnext_slot(f->scan, ForwardScanDirection, f->slot))
		return false;
	d = slot_getattr(f->slot, f->a_status, &isnull);
	if (isnull || d != f->active)
		ok = false;
	if (ok && f->has_as_of)
	{
		d = slot_getattr(f->slot, f->a_valid_from, &isnull);
		if (!isnull && !(DatumGetTimestampTz(d) <= f->as_of))
			ok = false;
		d = slot_getattr(f->slot, f->a_created_at, &isnull);
		if (ok && (isnull || !(DatumGetTimestampTz(d) <= f->as_of)))
			ok = false;
	}
	if (ok && f->contexts != NULL)
	{
		int			i;
		bool		found = false;

		d = slot_getattr(f->slot, f->a_context, &isnull);
		for (i = 0; !isnull && !found && i < f->ncontexts; i++)
			found = DatumGetBool(DirectFunctionCall2Coll(texteq, f->collation, d, f->contexts[i]));
		ok = found;
	}
	d = slot_getattr(f->slot, f->a_layer, &isnull);
	core = !isnull && d == f->core;
	if (ok && !core && (f->has_from || f->has_to))
	{
		bool		n_occ,
					n_ev;
		TimestampTz occ = DatumGetTimestampTz(slot_getattr(f->slot, f->a_occurred_at, &n_occ));
		TimestampTz created = DatumGetTimestampTz(slot_getattr(f->slot, f->a_created_at, &isnull));
		TimestampTz v;

		if (f->has_from)
		{
			/* coalesce(event_to, occurred_at + 1 µs, created_at + 1 µs) > from */
			v = DatumGetTimestampTz(slot_getattr(f->slot, f->a_event_to, &n_ev));
			if (n_ev)
				v = n_occ ? created : occ;
			if (n_ev && !TIMESTAMP_NOT_FINITE(v))
				v += 1;
			if (!(v > f->from))
				ok = false;
		}
		if (ok && f->has_to)
		{
			/* coalesce(event_from, occurred_at, created_at) < to */
			v = DatumGetTimestampTz(slot_getattr(f->slot, f->a_event_from, &n_ev));
			if (n_ev)
				v = n_occ ? created : occ;
			if (!(v < f->to))
				ok = false;
		}
	}
	ExecClearTuple(f->slot);
	return ok;
}

static Relation
open_postings(Relation *index)
{
	Relation	heap = open_zb_table("memory_posting", index);
	TupleDesc	desc;
	int			i;

	desc = RelationGetDescr(*index);
	if (desc->natts != N_ATTS || IndexRelationGetNumberOfKeyAttributes(*index) != 4 ||
		(*index)->rd_rel->relam != BTREE_AM_OID)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: the primary key of zb.memory_posting is not the one this library was built for"),
						errhint("Update the zb_lexical extension to the schema's version.")));
	for (i = 0; i < N_ATTS; i++)
		if (strcmp(NameStr(TupleDescAttr(desc, i)->attname), attnames[i]) != 0)
			ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
							errmsg("zb.lexical_topk: column %d of the primary key of zb.memory_posting is \"%s\", expected \"%s\"",
								   i + 1, NameStr(TupleDescAttr(desc, i)->attname), attnames[i])));
	if (TupleDescAttr(desc, A_MEMORY)->atttypid != INT8OID || TupleDescAttr(desc, A_TF)->atttypid != INT4OID ||
		TupleDescAttr(desc, A_DL)->atttypid != INT4OID || TupleDescAttr(desc, A_SESSION)->atttypid != UUIDOID ||
		TupleDescAttr(desc, A_VALID_TO)->atttypid != TIMESTAMPTZOID ||
		TupleDescAttr(desc, A_TENANT)->atttypid != TEXTOID || TupleDescAttr(desc, A_TERM)->atttypid != TEXTOID)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: the column types of zb.memory_posting's primary key are not the ones this library was built for")));
	return heap;
}

/* Read one term's postings: counts over every posting, and the requested layers' valid ones kept. */
static void
read_term(Relation heap, Relation index, Snapshot snapshot, Datum tenant, Term *t,
		  Datum *layers, int nlayers, TimestampTz at, TupleTableSlot *slot, Buffer *vmbuf)
{
	ScanKeyData keys[2];
	IndexScanDesc scan;
	ItemPointer tid;
	Datum		values[N_ATTS];
	bool		isnull[N_ATTS];
	UuidSet		sessions;
	int			cur = -1;
	Datum		curlayer = (Datum) 0;
	bool		havelayer = false;
	uint64		seen = 0;
	pg_uuid_t	last;
	bool		havelast = false;

	t->df = 0;
	t->sdf = 0;
	t->npostings = 0;
	if (t->null)
		return;
	uuidset_init(&sessions, 1024);
	ScanKeyEntryInitialize(&keys[0], 0, A_TENANT + 1, BTEqualStrategyNumber, InvalidOid,
						   index->rd_indcollation[A_TENANT], F_TEXTEQ, tenant);
	ScanKeyEntryInitialize(&keys[1], 0, A_TERM + 1, BTEqualStrategyNumber, InvalidOid,
						   index->rd_indcollation[A_TERM], F_TEXTEQ, t->text);
	scan = index_beginscan(heap, index, snapshot, 2, 0);
	scan->xs_want_itup = true;
	index_rescan(scan, keys, 2, NULL, 0);
	while ((tid = index_getnext_tid(scan, ForwardScanDirection)) != NULL)
	{
		int64		memory_id;

		if ((++seen & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		/* As an index-only scan: the heap decides where the page is not all-visible. */
		if (!VM_ALL_VISIBLE(heap, ItemPointerGetBlockNumber(tid), vmbuf))
		{
			if (!index_fetch_heap(scan, slot))
				continue;
			ExecClearTuple(slot);
		}
		index_deform_tuple(scan->xs_itup, scan->xs_itupdesc, values, isnull);
		t->df++;
		if (!isnull[A_SESSION])
		{
			pg_uuid_t  *u = DatumGetUUIDP(values[A_SESSION]);

			/* a memory's neighbours in key order usually share its session */
			if (!havelast || memcmp(last.data, u->data, UUID_LEN) != 0)
			{
				uuidset_add(&sessions, u);
				memcpy(last.data, u->data, UUID_LEN);
				havelast = true;
			}
		}
		if (!havelayer || values[A_LAYER] != curlayer)
		{
			int			i;

			curlayer = values[A_LAYER];
			havelayer = true;
			cur = -1;
			for (i = 0; i < nlayers; i++)
				if (layers[i] == curlayer)
				{
					cur = i;
					t->start[i] = t->npostings;
					t->end[i] = t->npostings;
					break;
				}
		}
		if (cur < 0)
			continue;
		if (!isnull[A_VALID_TO] && !(DatumGetTimestampTz(values[A_VALID_TO]) > at))
			continue;
		memory_id = DatumGetInt64(values[A_MEMORY]);
		if (t->npostings == t->cap)
		{
			t->cap *= 2;
			t->postings = repalloc_huge(t->postings, sizeof(Posting) * (Size) t->cap);
		}
		t->postings[t->npostings].memory_id = memory_id;
		t->postings[t->npostings].tf = DatumGetInt32(values[A_TF]);
		t->postings[t->npostings].dl = DatumGetInt32(values[A_DL]);
		t->npostings++;
		t->end[cur] = t->npostings;
	}
	index_endscan(scan);
	t->sdf = (int64) sessions.used + (sessions.has_zero ? 1 : 0);
	pfree(sessions.slots);
}

PG_FUNCTION_INFO_V1(zb_lexical_topk);

Datum
zb_lexical_topk(PG_FUNCTION_ARGS)
{
	Datum		tenant;
	ArrayType  *terms_arr;
	int64		n;
	double		sn;
	double		avgdl;
	ArrayType  *layers_arr;
	int32		k;
	TimestampTz at;
	Filter		filter;
	bool		filtered;
	TupleDesc	rdesc;
	Datum	   *tvals;
	bool	   *tnulls;
	int			nterms;
	int		   *pos;			/* position in p_terms -> distinct term */
	Term	   *dt;
	int			ndt = 0;
	Datum	   *lvals;
	bool	   *lnulls;
	int			nlayer_elems;
	Datum	   *layers;
	int			nlayers = 0;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Relation	heap,
				index;
	Snapshot	snapshot = GetActiveSnapshot();
	TupleTableSlot *slot;
	Buffer		vmbuf = InvalidBuffer;
	double		avgdl_floor;
	int64	   *out_ids;
	int			nout = 0;
	Datum	   *idfd,
			   *sidfd;
	Datum		result[3];
	bool		rnull[3] = {false, false, false};
	int			i,
				j,
				l;

	/* Without a tenant, terms, statistics, layers, k or time there is nothing to score: NULL
	 * (the SQL function would fail or return nothing; its caller falls back to it). */
	if (PG_NARGS() != 12)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("zb.lexical_topk: the library takes 12 arguments, the SQL definition passed %d", PG_NARGS()),
						errhint("The installed zb_lexical library and its SQL definitions differ: DROP EXTENSION zb_lexical and create it again.")));
	for (i = 0; i < 8; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	tenant = PointerGetDatum(PG_GETARG_TEXT_PP(0));
	terms_arr = PG_GETARG_ARRAYTYPE_P(1);
	n = PG_GETARG_INT64(2);
	sn = PG_GETARG_FLOAT8(3);
	avgdl = PG_GETARG_FLOAT8(4);
	layers_arr = PG_GETARG_ARRAYTYPE_P(5);
	k = PG_GETARG_INT32(6);
	memset(&filter, 0, sizeof(filter));
	filter.has_from = !PG_ARGISNULL(8);
	filter.has_to = !PG_ARGISNULL(9);
	filter.has_as_of = !PG_ARGISNULL(10);
	if (filter.has_from)
		filter.from = PG_GETARG_TIMESTAMPTZ(8);
	if (filter.has_to)
		filter.to = PG_GETARG_TIMESTAMPTZ(9);
	if (filter.has_as_of)
		filter.as_of = PG_GETARG_TIMESTAMPTZ(10);
	if (!PG_ARGISNULL(11))
	{
		ArrayType  *ctx = PG_GETARG_ARRAYTYPE_P(11);
		Datum	   *cv;
		bool	   *cn;
		int			nc;

		deconstruct_array(ctx, TEXTOID, -1, false, TYPALIGN_INT, &cv, &cn, &nc);
		filter.contexts = palloc(sizeof(Datum) * (nc + 1));
		for (i = 0; i < nc; i++)
			if (!cn[i])			/* x = ANY ('{a,NULL}') is never true through the NULL */
				filter.contexts[filter.ncontexts++] = cv[i];
	}
	filtered = filter.has_from || filter.has_to || filter.has_as_of || filter.contexts != NULL;
	/* postings still valid at coalesce(as_of, now) */
	at = filter.has_as_of ? filter.as_of : PG_GETARG_TIMESTAMPTZ(7);

	if (get_call_result_type(fcinfo, NULL, &rdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("zb.lexical_topk must be called as a function returning a record")));
	rdesc = BlessTupleDesc(rdesc);
	if (k < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE), errmsg("LIMIT must not be negative")));
	if (ARR_NDIM(terms_arr) > 1 || ARR_NDIM(layers_arr) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR), errmsg("zb.lexical_topk: the terms and layers must be one-dimensional arrays")));
	if (snapshot == NULL)
		ereport(ERROR, (errcode(ERRCODE_INVALID_TRANSACTION_STATE), errmsg("zb.lexical_topk needs an active snapshot")));

	deconstruct_array(terms_arr, TEXTOID, -1, false, TYPALIGN_INT, &tvals, &tnulls, &nterms);
	get_typlenbyvalalign(ARR_ELEMTYPE(layers_arr), &typlen, &typbyval, &typalign);
	deconstruct_array(layers_arr, ARR_ELEMTYPE(layers_arr), typlen, typbyval, typalign, &lvals, &lnulls, &nlayer_elems);

	heap = open_postings(&index);
	if (ARR_ELEMTYPE(layers_arr) != TupleDescAttr(RelationGetDescr(index), A_LAYER)->atttypid)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
						errmsg("zb.lexical_topk: the layers must be an array of %s, got %s",
							   format_type_be(TupleDescAttr(RelationGetDescr(index), A_LAYER)->atttypid),
							   format_type_be(ARR_ELEMTYPE(layers_arr)))));
	if (!typbyval)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH), errmsg("zb.lexical_topk: the layer type must be passed by value")));

	/* distinct requested layers (NULL matches nothing) */
	layers = palloc(sizeof(Datum) * (nlayer_elems + 1));
	for (i = 0; i < nlayer_elems; i++)
	{
		bool		dup = false;

		if (lnulls[i])
			continue;
		for (j = 0; j < nlayers; j++)
			if (layers[j] == lvals[i])
				dup = true;
		if (!dup)
			layers[nlayers++] = lvals[i];
	}

	/* distinct terms; a repeated term is one term, reported at each of its positions */
	pos = palloc(sizeof(int) * (nterms + 1));
	dt = palloc0(sizeof(Term) * (nterms + 1));
	for (i = 0; i < nterms; i++)
	{
		pos[i] = -1;
		for (j = 0; j < ndt && pos[i] < 0; j++)
		{
			if (tnulls[i] || dt[j].null)
			{
				if (tnulls[i] && dt[j].null)
					pos[i] = j;
				continue;
			}
			if (DatumGetBool(DirectFunctionCall2Coll(texteq, index->rd_indcollation[A_TERM], tvals[i], dt[j].text)))
				pos[i] = j;
		}
		if (pos[i] < 0)
		{
			Term	   *t = &dt[ndt];

			t->null = tnulls[i];
			t->text = tnulls[i] ? (Datum) 0 : PointerGetDatum(PG_DETOAST_DATUM_PACKED(tvals[i]));
			t->cap = 1024;
			t->postings = palloc(sizeof(Posting) * t->cap);
			t->start = palloc0(sizeof(int) * (nlayers + 1));
			t->end = palloc0(sizeof(int) * (nlayers + 1));
			pos[i] = ndt++;
		}
	}

	if (IsolationIsSerializable())
		PredicateLockRelation(heap, snapshot);
	slot = table_slot_create(heap, NULL);
	for (j = 0; j < ndt; j++)
		read_term(heap, index, snapshot, tenant, &dt[j], layers, nlayers, at, slot, &vmbuf);
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	ExecDropSingleTupleTableSlot(slot);
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	if (filtered)
		filter_open(&filter, tenant, snapshot);

	for (j = 0; j < ndt; j++)
		dt[j].weight = idf_numeric(n, dt[j].df);
	avgdl_floor = float8_gt(avgdl, 1e-9) ? avgdl : 1e-9;

	/* per layer: merge the terms' ranges in memory order, sum, keep the best k */
	{
		int64		total = 0;

		for (j = 0; j < ndt; j++)
			total += dt[j].npostings;
		if ((int64) k > total)
			k = (int32) total;	/* no layer has more candidates than postings */
	}
	out_ids = palloc(sizeof(int64) * ((Size) Max(k, 1) * (nlayers + 1)));
	{
		Pick	   *heap_picks = palloc(sizeof(Pick) * (Max(k, 1) + 1));
		int		   *cur = palloc(sizeof(int) * (ndt + 1));
		Pick	   *all = NULL;
		int			allcap = 0;

		for (l = 0; l < nlayers; l++)
		{
			int			npicks = 0;
			int			nall = 0;

			for (j = 0; j < ndt; j++)
				cur[j] = dt[j].start[l];
			for (;;)
			{
				int64		min = PG_INT64_MAX;
				bool		any = false;
				Pick		p;

				for (j = 0; j < ndt; j++)
					if (cur[j] < dt[j].end[l] && (!any || dt[j].postings[cur[j]].memory_id < min))
					{
						min = dt[j].postings[cur[j]].memory_id;
						any = true;
					}
				if (!any)
					break;
				p.id = min;
				p.score = 0;
				for (j = 0; j < ndt; j++)
					if (cur[j] < dt[j].end[l] && dt[j].postings[cur[j]].memory_id == min)
					{
						Posting    *po = &dt[j].postings[cur[j]];

						p.score += part(dt[j].weight, po->tf, po->dl, avgdl_floor);
						cur[j]++;
					}
				if (!filtered)
				{
					heap_offer(heap_picks, &npicks, k, p);
					continue;
				}
				if (nall == allcap)
				{
					allcap = Max(1024, allcap * 2);
					all = all == NULL ? palloc(sizeof(Pick) * allcap) : repalloc_huge(all, sizeof(Pick) * (Size) allcap);
				}
				all[nall++] = p;
			}
			if (filtered)
			{
				int			passed = 0;

				/* best first (a heap of every scored memory), until k pass the filters */
				for (i = nall / 2 - 1; i >= 0; i--)
					sift_down(all, nall, i, better);
				while (nall > 0 && passed < k)
				{
					Pick		top = all[0];

					all[0] = all[--nall];
					if (nall > 0)
						sift_down(all, nall, 0, better);
					if (filter_passes(&filter, top.id))
					{
						out_ids[nout++] = top.id;
						passed++;
					}
					if ((nall & 1023) == 0)
						CHECK_FOR_INTERRUPTS();
				}
			}
			for (i = 0; i < npicks; i++)
				out_ids[nout++] = heap_picks[i].id;
			CHECK_FOR_INTERRUPTS();
		}
	}
	filter_close(&filter);
	qsort(out_ids, nout, sizeof(int64), cmp_int64);

	idfd = palloc(sizeof(Datum) * (nterms + 1));
	sidfd = palloc(sizeof(Datum) * (nterms + 1));
	for (i = 0; i < nterms; i++)
	{
		idfd[i] = Float8GetDatum(dt[pos[i]].weight);
		sidfd[i] = Float8GetDatum(sidf_float(sn, dt[pos[i]].sdf));
	}
	{
		Datum	   *idd = palloc(sizeof(Datum) * (nout + 1));

		for (i = 0; i < nout; i++)
			idd[i] = Int64GetDatum(out_ids[i]);
		result[2] = PointerGetDatum(construct_array(idd, nout, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
	result[0] = PointerGetDatum(construct_array(idfd, nterms, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	result[1] = PointerGetDatum(construct_array(sidfd, nterms, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(rdesc, result, rnull)));
}

PG_FUNCTION_INFO_V1(zb_lexical_version);

Datum
zb_lexical_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(ZB_LEXICAL_VERSION));
}
