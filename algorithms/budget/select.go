package budget

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/zenbrain/zb/algorithms/textproc"
)

// Selector defaults.
const (
	// RedundancyPenaltyDefault is λ in score·(1 − λ·maxJaccard).
	RedundancyPenaltyDefault = 1.0
	// CharsPerTokenDefault estimates tokens from characters when a piece
	// does not say how many tokens it has (the usual 4 characters per token
	// of English text; the reference assembler uses the same).
	CharsPerTokenDefault = 4
)

// Piece is one candidate for the assembled context.
type Piece struct {
	// ID identifies the piece; IDs break ties.
	ID string
	// Text is the content; redundancy is measured on its tokens.
	Text string
	// Score is the piece's relevance (for example the recall score). It must
	// be finite; pieces with score ≤ 0 are never chosen unless pinned.
	Score float64
	// Tokens is the piece's size in tokens. 0 means estimate it as
	// ceil(characters/CharsPerToken); negative is an error.
	Tokens int
	// Pinned pieces (core memories) are taken first, in input order, if they
	// fit; they bypass the score and redundancy rules.
	Pinned bool
}

// SelectConfig configures [Select].
type SelectConfig struct {
	// Budget is the token budget; the selection never exceeds it. It must be
	// ≥ 0.
	Budget int
	// RedundancyPenalty is λ ≥ 0. Defaults to RedundancyPenaltyDefault; −1
	// means 0 (no redundancy penalty). With λ > 1 a piece that overlaps a
	// chosen one by more than 1/λ is never chosen.
	RedundancyPenalty float64
	// CharsPerToken is used to estimate missing token counts. Defaults to
	// CharsPerTokenDefault.
	CharsPerToken int
}

// Chosen is a selected piece with the values that selected it.
type Chosen struct {
	// Piece is the selected piece, with Tokens filled in.
	Piece Piece
	// Gain is score·(1 − λ·Redundancy) at the time of selection (Score for
	// pinned pieces).
	Gain float64
	// Redundancy is the largest token Jaccard with a previously chosen
	// piece.
	Redundancy float64
}

// Selection is the result of [Select].
type Selection struct {
	// Chosen lists the selected pieces in selection order (pinned first).
	Chosen []Chosen
	// Used is the total tokens of Chosen; Used ≤ Budget.
	Used int
	// Value is the total Gain of Chosen.
	Value float64
	// Skipped lists the IDs of pieces not chosen, in input order.
	Skipped []string
}

// EstimateTokens returns ceil(runes/charsPerToken) (at least 1 for
// non-empty text, 0 for empty text). charsPerToken ≤ 0 means
// CharsPerTokenDefault.
func EstimateTokens(text string, charsPerToken int) int {
	if charsPerToken <= 0 {
		charsPerToken = CharsPerTokenDefault
	}
	n := utf8.RuneCountInString(text)
	return (n + charsPerToken - 1) / charsPerToken
}

// Select chooses pieces for a context of at most cfg.Budget tokens:
//
//  1. Pinned pieces, in input order, each if it still fits.
//  2. Then repeatedly the unpinned piece that fits and has the highest
//     gain per token, gain = score·(1 − λ·max Jaccard with chosen pieces);
//     ties go to the higher score, then the smaller ID, then input order.
//     Selection stops when no fitting piece has positive gain.
//  3. Because gain-per-token greedy can lose to one large valuable piece,
//     the unpinned part is compared with the single best fitting unpinned
//     piece (by gain) and the better of the two is kept (the classic
//     ½-approximation for knapsack).
//
// Select returns an error for a negative budget, a negative token count or a
// non-finite score or penalty.
func Select(pieces []Piece, cfg SelectConfig) (Selection, error) {
	if cfg.Budget < 0 {
		return Selection{}, fmt.Errorf("error selecting context: budget %d is negative", cfg.Budget)
	}
	lambda := cmp.Or(cfg.RedundancyPenalty, RedundancyPenaltyDefault)
	if lambda == -1 {
		lambda = 0
	}
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) || lambda < 0 {
		return Selection{}, fmt.Errorf("error selecting context: redundancy penalty %v", lambda)
	}
	cpt := cmp.Or(cfg.CharsPerToken, CharsPerTokenDefault)
	ps := make([]Piece, len(pieces))
	toks := make([]textproc.Set, len(pieces))
	for i, p := range pieces {
		if math.IsNaN(p.Score) || math.IsInf(p.Score, 0) {
			return Selection{}, fmt.Errorf("error selecting context: piece %q has score %v", p.ID, p.Score)
		}
		if p.Tokens < 0 {
			return Selection{}, fmt.Errorf("error selecting context: piece %q has %d tokens", p.ID, p.Tokens)
		}
		if p.Tokens == 0 {
			p.Tokens = EstimateTokens(p.Text, cpt)
		}
		ps[i] = p
		toks[i] = textproc.NewSet(textproc.Tokens(p.Text))
	}

	used := 0
	taken := make([]bool, len(ps))
	var pinned []Chosen
	var chosenIdx []int
	for i, p := range ps {
		if p.Pinned && used+p.Tokens <= cfg.Budget {
			pinned = append(pinned, Chosen{Piece: p, Gain: p.Score, Redundancy: redundancy(toks, chosenIdx, i)})
			chosenIdx = append(chosenIdx, i)
			taken[i] = true
			used += p.Tokens
		}
	}
	remaining := cfg.Budget - used

	gainOf := func(i int, chosen []int) (float64, float64) {
		red := redundancy(toks, chosen, i)
		return ps[i].Score * (1 - lambda*red), red
	}

	// Greedy by gain per token.
	greedyChosen := slices.Clone(chosenIdx)
	var greedy []Chosen
	greedyUsed, greedyValue := 0, 0.0
	greedyTaken := slices.Clone(taken)
	for {
		best, bestGain, bestRed := -1, 0.0, 0.0
		for i, p := range ps {
			if greedyTaken[i] || p.Pinned || p.Tokens > remaining-greedyUsed {
				continue
			}
			g, red := gainOf(i, greedyChosen)
			if g <= 0 {
				continue
			}
			if best < 0 || better(g, p, bestGain, ps[best]) {
				best, bestGain, bestRed = i, g, red
			}
		}
		if best < 0 {
			break
		}
		greedyTaken[best] = true
		greedyChosen = append(greedyChosen, best)
		greedy = append(greedy, Chosen{Piece: ps[best], Gain: bestGain, Redundancy: bestRed})
		greedyUsed += ps[best].Tokens
		greedyValue += bestGain
	}

	// Best single unpinned piece.
	single, singleGain, singleRed := -1, 0.0, 0.0
	for i, p := range ps {
		if taken[i] || p.Pinned || p.Tokens > remaining {
			continue
		}
		g, red := gainOf(i, chosenIdx)
		if g > singleGain || (g == singleGain && single >= 0 && g > 0 && tieBetter(p, ps[single])) {
			single, singleGain, singleRed = i, g, red
		}
	}

	out := Selection{Chosen: pinned, Used: used}
	for _, c := range pinned {
		out.Value += c.Gain
	}
	if single >= 0 && singleGain > greedyValue {
		out.Chosen = append(out.Chosen, Chosen{Piece: ps[single], Gain: singleGain, Redundancy: singleRed})
		out.Used += ps[single].Tokens
		out.Value += singleGain
		taken[single] = true
	} else {
		out.Chosen = append(out.Chosen, greedy...)
		out.Used += greedyUsed
		out.Value += greedyValue
		taken = greedyTaken
	}
	for i, p := range ps {
		if !taken[i] {
			out.Skipped = append(out.Skipped, p.ID)
		}
	}
	return out, nil
}

// better reports whether a candidate with gain g and piece p beats the
// current best by gain per token, then score, then ID.
func better(g float64, p Piece, bestGain float64, best Piece) bool {
	a := g / float64(max(p.Tokens, 1))
	b := bestGain / float64(max(best.Tokens, 1))
	if a != b {
		return a > b
	}
	return tieBetter(p, best)
}

func tieBetter(p, best Piece) bool {
	if p.Score != best.Score {
		return p.Score > best.Score
	}
	return p.ID < best.ID
}

func redundancy(toks []textproc.Set, chosen []int, i int) float64 {
	red := 0.0
	for _, j := range chosen {
		red = max(red, toks[i].Jaccard(toks[j]))
	}
	return red
}
