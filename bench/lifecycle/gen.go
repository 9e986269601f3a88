package lifecycle

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/zenbrain/zb/coordinator"
)

var (
	genNames  = strings.Fields("Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter Yolanda")
	genPlaces = strings.Fields("Paris Lisbon Berlin Oslo Madrid Vienna Prague Dublin Rome Athens")
	genWords  = strings.Fields(`apple river stone cloud maple copper violin garden ladder harbor candle meadow
		silver pepper rocket saddle timber velvet walnut marble orchid lantern puzzle feather canyon glacier
		hammock island jasmine kettle lemon mirror nutmeg oyster pillow quartz ribbon saffron tulip umbrella
		vessel whistle yogurt zephyr anchor bamboo cactus dolphin ember falcon ginger hazel igloo jungle koala
		lotus magnet nectar olive parrot quiver raven`)
)

// genText returns memory i's content: two people and a place (entities that repeat, so
// co_occurs edges form) and six filler words.
func genText(r *rand.Rand, i int) string {
	a := r.IntN(len(genNames))
	b := (a + 1 + r.IntN(len(genNames)-1)) % len(genNames)
	fill := make([]string, 6)
	for j := range fill {
		fill[j] = genWords[r.IntN(len(genWords))]
	}
	return fmt.Sprintf("%s met %s in %s: %s (#%d)", genNames[a], genNames[b], genPlaces[r.IntN(len(genPlaces))],
		strings.Join(fill, " "), i)
}

// genItems returns n StoreBatch items of tenant, alternately episodic and semantic.
func genItems(r *rand.Rand, tenant string, n int) []coordinator.StoreInput {
	items := make([]coordinator.StoreInput, n)
	for i := range items {
		layer := coordinator.LayerSemantic
		if i%2 == 1 {
			layer = coordinator.LayerEpisodic
		}
		items[i] = coordinator.StoreInput{TenantID: tenant, Content: genText(r, i), Layer: layer}
	}
	return items
}
