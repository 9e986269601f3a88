package coordinator_test

import (
	"fmt"

	"github.com/zenbrain/zb/coordinator"
)

func ExampleExtractFact() {
	f, ok := coordinator.ExtractFact("Bob lives in Paris.")
	fmt.Println(ok, f.Subject, f.Attribute, f.Value)
	f, ok = coordinator.ExtractFact("Annas Lieblingsfarbe ist Blau")
	fmt.Println(ok, f.Subject, f.Attribute, f.Value)
	// Output:
	// true bob residence paris
	// true anna lieblingsfarbe blau
}

func ExampleEstimateTokens() {
	fmt.Println(coordinator.EstimateTokens("four words right here"))
	// Output: 6
}
