package perf

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/zenbrain/zb/coordinator"
)

var (
	genNames  = strings.Fields("Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter Yolanda")
	genPlaces = strings.Fields("Paris Lisbon Berlin Oslo Madrid Vienna Prague Dublin Rome Athens Tokyo Lima Cairo Quito Seoul")
	genVerbs  = strings.Fields("met called visited helped emailed thanked followed interviewed")
	genWords  = strings.Fields(`apple river stone cloud maple copper violin garden ladder harbor candle meadow
		silver pepper rocket saddle timber velvet walnut marble orchid lantern puzzle feather canyon glacier
		hammock island jasmine kettle lemon mirror nutmeg oyster pillow quartz ribbon saffron tulip umbrella
		vessel whistle yogurt zephyr anchor bamboo cactus dolphin ember falcon ginger hazel igloo jungle koala
		lotus magnet nectar olive parrot quiver raven budget invoice meeting project deadline garden recipe
		concert flight hotel doctor dentist school library museum bakery bicycle camera laptop printer`)
	// genLayers are the layers of generated memories, in proportion 5:3:2.
	genLayers = []coordinator.Layer{
		coordinator.LayerSemantic, coordinator.LayerSemantic, coordinator.LayerSemantic,
		coordinator.LayerSemantic, coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerEpisodic,
		coordinator.LayerEpisodic, coordinator.LayerProcedural, coordinator.LayerProcedural,
	}
)

// searchLayers are the layers of generated memories, for filtered search.
var searchLayers = []coordinator.Layer{coordinator.LayerSemantic, coordinator.LayerEpisodic, coordinator.LayerProcedural}

// genText returns memory i's content: people, a place and eight filler words.
func genText(r *rand.Rand, i int) string {
	a := r.IntN(len(genNames))
	b := (a + 1 + r.IntN(len(genNames)-1)) % len(genNames)
	fill := make([]string, 8)
	for j := range fill {
		fill[j] = genWords[r.IntN(len(genWords))]
	}
	return fmt.Sprintf("%s %s %s in %s about %s (#%d)", genNames[a], genVerbs[r.IntN(len(genVerbs))], genNames[b],
		genPlaces[r.IntN(len(genPlaces))], strings.Join(fill, " "), i)
}

// genQuery returns a recall query in the vocabulary of the memories.
func genQuery(r *rand.Rand) string {
	return fmt.Sprintf("what did %s do in %s with the %s and the %s", genNames[r.IntN(len(genNames))],
		genPlaces[r.IntN(len(genPlaces))], genWords[r.IntN(len(genWords))], genWords[r.IntN(len(genWords))])
}

// tenantName is the id of tenant t.
func tenantName(t int) string { return "t" + strconv.Itoa(t) }

// genItem is memory i of tenant.
func genItem(r *rand.Rand, tenant string, i int, at time.Time) coordinator.StoreInput {
	occ := at.Add(-time.Duration(r.IntN(90*24)) * time.Hour)
	return coordinator.StoreInput{TenantID: tenant, Content: genText(r, i), Layer: genLayers[r.IntN(len(genLayers))], OccurredAt: &occ}
}

// loadMemories stores n memories spread round-robin over tenants through StoreBatch in
// batches of 5000 (with the hash embedder inline).
func loadMemories(ctx context.Context, c *Config, co *coordinator.Coordinator, n, tenants int) error {
	r := rand.New(rand.NewPCG(c.Seed, uint64(n)*31+uint64(tenants)))
	now := time.Now()
	const loadBatch = 5000
	batch := make([]coordinator.StoreInput, 0, loadBatch)
	for i := range n {
		batch = append(batch, genItem(r, tenantName(i%tenants), i, now))
		if len(batch) == loadBatch || i == n-1 {
			if _, err := co.StoreBatch(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}
