package textproc_test

import (
	"fmt"

	"github.com/zenbrain/zb/algorithms/textproc"
)

func ExampleTokens() {
	fmt.Println(textproc.Tokens("Don't forget: Müller’s Straße, 10:30!"))
	// Output: [don't forget müller's straße 10 30]
}

func ExampleTerms() {
	fmt.Println(textproc.Terms("I was running to the houses", textproc.English))
	fmt.Println(textproc.Terms("Die Häuser der Kinder", textproc.German))
	// Output:
	// [run hous]
	// [haus kind]
}

func ExampleTokenJaccard() {
	fmt.Printf("%.2f\n", textproc.TokenJaccard("the cat sat", "The cat!"))
	// Output: 0.67
}
