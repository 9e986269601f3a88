-- name: NeuroEventInsertMany :exec
-- NeuroEventInsertMany appends neuromodulator events of a tenant (memory id 0: none).
INSERT INTO zb.neuromodulator_event (tenant_id, event, magnitude, memory_id, created_at)
SELECT @tenant_id::text, u.e, u.m, nullif(u.mem, 0), @now::timestamptz
FROM (SELECT unnest(@events::text[]) AS e, unnest(@magnitudes::real[]) AS m, unnest(@memory_ids::bigint[]) AS mem) u;

-- name: NeuroEventsRecent :many
-- NeuroEventsRecent returns up to k of a tenant's neuromodulator events in (since, until], newest
-- first (neuromodulator_event_time_idx).
SELECT id, event, magnitude, created_at FROM zb.neuromodulator_event
WHERE tenant_id = @tenant_id::text AND created_at > @since::timestamptz AND created_at <= @until::timestamptz
ORDER BY created_at DESC, id DESC
LIMIT @k::int;

-- name: NeuroStateUpsert :exec
-- NeuroStateUpsert writes a tenant's neuromodulator state (tonic levels as of last_tick_at, phasic
-- components as of phasic_at).
INSERT INTO zb.neuromodulator_state (tenant_id, da_tonic, ne_tonic, ht_tonic, ach_tonic, da_phasic, ne_phasic,
                                     ht_phasic, ach_phasic, phasic_at, last_tick_at, updated_at)
VALUES (@tenant_id::text, @da_tonic::real, @ne_tonic::real, @ht_tonic::real, @ach_tonic::real, @da_phasic::real,
        @ne_phasic::real, @ht_phasic::real, @ach_phasic::real, @phasic_at::timestamptz, @last_tick_at::timestamptz,
        @now::timestamptz)
ON CONFLICT (tenant_id) DO UPDATE
SET da_tonic = EXCLUDED.da_tonic, ne_tonic = EXCLUDED.ne_tonic, ht_tonic = EXCLUDED.ht_tonic, ach_tonic = EXCLUDED.ach_tonic,
    da_phasic = EXCLUDED.da_phasic, ne_phasic = EXCLUDED.ne_phasic, ht_phasic = EXCLUDED.ht_phasic,
    ach_phasic = EXCLUDED.ach_phasic, phasic_at = EXCLUDED.phasic_at, last_tick_at = EXCLUDED.last_tick_at,
    updated_at = EXCLUDED.updated_at;

-- name: NeuroStateGet :many
-- NeuroStateGet returns a tenant's stored neuromodulator state (no row: never written).
SELECT * FROM zb.neuromodulator_state WHERE tenant_id = @tenant_id::text;

-- name: NeuroStateBaseline :exec
-- NeuroStateBaseline sets a tenant's stored neuromodulator state to the baseline at now (no
-- event left in the replay window), when it is not already there.
UPDATE zb.neuromodulator_state
SET da_tonic = @baseline::real, ne_tonic = @baseline::real, ht_tonic = @baseline::real, ach_tonic = @baseline::real,
    da_phasic = 0, ne_phasic = 0, ht_phasic = 0, ach_phasic = 0, phasic_at = @now::timestamptz,
    last_tick_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE tenant_id = @tenant_id::text
  AND (da_tonic <> @baseline::real OR ne_tonic <> @baseline::real OR ht_tonic <> @baseline::real OR ach_tonic <> @baseline::real
       OR da_phasic <> 0 OR ne_phasic <> 0 OR ht_phasic <> 0 OR ach_phasic <> 0);

-- name: NeuroTickPreamble :one
-- NeuroTickPreamble reads, in one round trip, what a lifecycle job needs first: it switches JIT
-- off for the rest of the transaction (the per-row index probes of the lifecycle queries have high
-- estimated costs but run in microseconds; JIT would compile them for far longer than they run),
-- and returns the tenant's disabled algorithms, its up to k newest neuromodulator events in
-- (since, now] oldest first, and whether its stored state is away from the baseline.
WITH ev AS (
    SELECT e.event, e.magnitude, e.created_at, e.id FROM zb.neuromodulator_event e
    WHERE e.tenant_id = @tenant_id::text AND e.created_at > @since::timestamptz AND e.created_at <= @now::timestamptz
    ORDER BY e.created_at DESC, e.id DESC
    LIMIT @k::int
)
SELECT set_config('jit', 'off', true)::text AS jit,
       coalesce((SELECT array_agg(s.algorithm ORDER BY s.algorithm) FROM zb.algorithm_switch s
                 WHERE s.tenant_id = @tenant_id::text AND NOT s.enabled), '{}')::text[] AS disabled,
       coalesce((SELECT array_agg(ev.event ORDER BY ev.created_at, ev.id) FROM ev), '{}')::text[] AS events,
       coalesce((SELECT array_agg(ev.magnitude ORDER BY ev.created_at, ev.id) FROM ev), '{}')::real[] AS magnitudes,
       coalesce((SELECT array_agg(ev.created_at ORDER BY ev.created_at, ev.id) FROM ev), '{}')::timestamptz[] AS times,
       EXISTS (SELECT 1 FROM zb.neuromodulator_state n
               WHERE n.tenant_id = @tenant_id::text
                 AND (n.da_tonic <> @baseline::real OR n.ne_tonic <> @baseline::real OR n.ht_tonic <> @baseline::real
                      OR n.ach_tonic <> @baseline::real OR n.da_phasic <> 0 OR n.ne_phasic <> 0 OR n.ht_phasic <> 0
                      OR n.ach_phasic <> 0))::boolean AS away;
