package coordinator

import (
	"context"
	"time"

	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/pma"
)

// CopyProtectThreshold is the triple-copy strength at or above which a memory counts as still
// retrievable through its copies (pma.TripleCopyMemory.Retrieve with the default threshold,
// pma.TripleCopyThresholdDefault, 0.3) [triple_copy]. Decay and sleep never archive such a
// memory, even when its retrievability R has fallen below the archive threshold: a deep copy
// promoted by sleep keeps growing (S_d·(1 − e^{−Δt/7 d})), so a consolidated memory outlives
// the forgetting curve of its trace. The fast and medium copies written at store (S0 and 0.8·S0
// with S0 below 0.3 for every stored memory) never reach it on their own.
const CopyProtectThreshold = pma.TripleCopyThresholdDefault

// copyProtected returns the subset of ids (memories of tenant) whose triple-copy strength at now
// is at least CopyProtectThreshold, with that strength. With triple_copy switched off the copies
// are ignored and it returns nothing.
func copyProtected(ctx context.Context, q *db.Queries, sw switchSet, tenant string, ids []int64, now time.Time) (map[int64]float64, error) {
	if len(ids) == 0 || !sw.enabled("triple_copy") {
		return nil, nil
	}
	rows, err := q.McCopyStrengths(ctx, db.McCopyStrengthsParams{TenantID: tenant, Ids: ids, Now: now})
	if err != nil {
		return nil, err
	}
	out := map[int64]float64{}
	for _, r := range rows {
		if r.Strength >= CopyProtectThreshold {
			out[r.MemoryID] = r.Strength
		}
	}
	return out, nil
}
