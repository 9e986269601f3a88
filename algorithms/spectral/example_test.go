package spectral_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/spectral"
)

func Example() {
	triangle := []spectral.Edge{{A: "a", B: "b", Weight: 1}, {A: "b", B: "c", Weight: 1}, {A: "a", B: "c", Weight: 1}}
	r, err := spectral.Analyze(nil, triangle, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("triangle: λ₂ %.3f, components %d, fragmented %v\n", r.Fiedler, r.Components, r.Fragmented)

	// A second triangle with no link to the first.
	apart := append(triangle, spectral.Edge{A: "x", B: "y", Weight: 1}, spectral.Edge{A: "y", B: "z", Weight: 1}, spectral.Edge{A: "x", B: "z", Weight: 1})
	r, err = spectral.Analyze(nil, apart, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("two triangles: λ₂ %.3f, components %d, fragmented %v\n", r.Fiedler, r.Components, r.Fragmented)
	// Output:
	// triangle: λ₂ 1.500, components 1, fragmented false
	// two triangles: λ₂ 0.000, components 2, fragmented true
}
