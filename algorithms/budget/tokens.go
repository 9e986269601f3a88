package budget

import (
	"math"
	"strings"
)

// TokensPerWord is the token estimate per whitespace-separated word: tokens ≈ ⌈words·1.3⌉, a
// common rule of thumb for English BPE vocabularies (German runs a little higher).
const TokensPerWord = 1.3

// Tokens is the project's token estimator: ⌈words(text)·TokensPerWord⌉. Context budgets,
// the context assembler and the benchmarks' budgets all count with it.
func Tokens(text string) int {
	return int(math.Ceil(float64(len(strings.Fields(text))) * TokensPerWord))
}

// InformationValue is the gain of a piece of relevance rel and the given size for [Select]:
// rel·tokens. What a piece tells its reader grows with its length, so its gain per token is its
// relevance: the selection fills the budget in relevance order, skipping what does not fit,
// instead of trading a relevant long piece for short weaker ones. A piece of unknown size
// (tokens ≤ 0) keeps rel.
func InformationValue(rel float64, tokens int) float64 {
	if tokens <= 0 {
		return rel
	}
	return rel * float64(tokens)
}
