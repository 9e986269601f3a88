package budget

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/algorithms/simstat"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func chosenIDs(s Selection) []string {
	out := make([]string, len(s.Chosen))
	for i, c := range s.Chosen {
		out[i] = c.Piece.ID
	}
	return out
}

func TestSelect(t *testing.T) {
	t.Parallel()
	dupA := Piece{ID: "a", Text: "Anna lives in Munich with her two cats", Score: 0.9, Tokens: 10}
	dupB := Piece{ID: "b", Text: "Anna lives in Munich with her two cats!", Score: 0.85, Tokens: 10}
	other := Piece{ID: "c", Text: "Sam prefers green tea in the morning", Score: 0.5, Tokens: 10}
	core := Piece{ID: "core", Text: "User name: Sam", Score: 0, Tokens: 4, Pinned: true}
	bigCore := Piece{ID: "big", Text: "long identity block", Score: 1, Tokens: 100, Pinned: true}
	tests := []struct {
		name    string
		pieces  []Piece
		cfg     SelectConfig
		want    []string
		used    int
		skipped []string
	}{
		{"redundant duplicate skipped", []Piece{dupA, dupB, other}, SelectConfig{Budget: 20}, []string{"a", "c"}, 20, []string{"b"}},
		{"penalty off takes duplicate", []Piece{dupA, dupB, other}, SelectConfig{Budget: 20, RedundancyPenalty: -1}, []string{"a", "b"}, 20, []string{"c"}},
		{"duplicate never fills spare room", []Piece{dupA, dupB}, SelectConfig{Budget: 100}, []string{"a"}, 10, []string{"b"}},
		{"pinned first even with score 0", []Piece{dupA, core, other}, SelectConfig{Budget: 15}, []string{"core", "a"}, 14, []string{"c"}},
		{"pinned that does not fit skipped", []Piece{bigCore, core, other}, SelectConfig{Budget: 20}, []string{"core", "c"}, 14, []string{"big"}},
		{"zero budget", []Piece{dupA, core}, SelectConfig{Budget: 0}, []string{}, 0, []string{"a", "core"}},
		{"non-positive scores never chosen", []Piece{{ID: "n", Text: "x", Score: -1}, {ID: "z", Text: "y", Score: 0}}, SelectConfig{Budget: 100}, []string{}, 0, []string{"n", "z"}},
		{"tokens estimated from text", []Piece{{ID: "e", Text: strings.Repeat("x", 41), Score: 1}}, SelectConfig{Budget: 11}, []string{"e"}, 11, nil},
		{
			// Greedy by ratio takes the tiny piece (1.0/token) and then the big
			// one no longer fits; the single big piece is worth more.
			"half approximation",
			[]Piece{{ID: "big", Text: "alpha beta", Score: 9, Tokens: 10}, {ID: "tiny", Text: "gamma", Score: 1, Tokens: 1}},
			SelectConfig{Budget: 10},
			[]string{"big"},
			10,
			[]string{"tiny"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Select(tt.pieces, tt.cfg)
			require.NoError(t, err)
			ids := chosenIDs(got)
			if len(tt.want) == 0 {
				require.Empty(t, ids)
			} else {
				require.Equal(t, tt.want, ids)
			}
			require.Equal(t, tt.used, got.Used)
			require.Equal(t, tt.skipped, got.Skipped)
			require.LessOrEqual(t, got.Used, tt.cfg.Budget)
		})
	}
}

func TestSelectRedundancyValues(t *testing.T) {
	t.Parallel()
	// b shares 4 of 6 distinct tokens with a: Jaccard 4/6, gain 0.8·(1 − 2/3).
	pieces := []Piece{
		{ID: "a", Text: "red green blue yellow", Score: 1, Tokens: 4},
		{ID: "b", Text: "red green blue yellow pink cyan", Score: 0.8, Tokens: 4},
	}
	got, err := Select(pieces, SelectConfig{Budget: 8})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, chosenIDs(got))
	require.InDelta(t, 4.0/6.0, got.Chosen[1].Redundancy, 1e-12)
	require.InDelta(t, 0.8/3, got.Chosen[1].Gain, 1e-12)
	require.InDelta(t, 1+0.8/3, got.Value, 1e-12)
}

func TestSelectNeverExceedsBudgetAndIsDeterministic(t *testing.T) {
	t.Parallel()
	words := strings.Fields("anna sam munich tea cats hiking zugspitze dentist boots map rain jacket water sister work")
	for _, seed := range simstat.Seeds {
		rng := simstat.NewMulberry32(seed)
		var pieces []Piece
		for i := range 40 {
			var ws []string
			for range 3 + rng.Intn(6) {
				ws = append(ws, words[rng.Intn(len(words))])
			}
			pieces = append(pieces, Piece{
				ID: fmt.Sprintf("p%02d", i), Text: strings.Join(ws, " "),
				Score: rng.Float64(), Tokens: 1 + rng.Intn(30), Pinned: rng.Float64() < 0.1,
			})
		}
		budget := 20 + rng.Intn(150)
		got, err := Select(pieces, SelectConfig{Budget: budget})
		require.NoError(t, err)
		sum := 0
		for _, c := range got.Chosen {
			sum += c.Piece.Tokens
		}
		require.Equal(t, sum, got.Used)
		require.LessOrEqual(t, got.Used, budget, "seed %d", seed)
		require.Equal(t, len(pieces), len(got.Chosen)+len(got.Skipped))

		// Reversing the input order of unpinned pieces changes nothing.
		rev := make([]Piece, 0, len(pieces))
		for _, p := range pieces {
			if p.Pinned {
				rev = append(rev, p)
			}
		}
		for i := len(pieces) - 1; i >= 0; i-- {
			if !pieces[i].Pinned {
				rev = append(rev, pieces[i])
			}
		}
		again, err := Select(rev, SelectConfig{Budget: budget})
		require.NoError(t, err)
		require.Equal(t, chosenIDs(got), chosenIDs(again), "seed %d", seed)
	}
}

func TestSelectErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		pieces []Piece
		cfg    SelectConfig
		msg    string
	}{
		{"negative budget", nil, SelectConfig{Budget: -1}, "budget -1"},
		{"NaN score", []Piece{{ID: "x", Score: math.NaN()}}, SelectConfig{Budget: 1}, "score NaN"},
		{"Inf score", []Piece{{ID: "x", Score: math.Inf(-1)}}, SelectConfig{Budget: 1}, "score -Inf"},
		{"negative tokens", []Piece{{ID: "x", Tokens: -2}}, SelectConfig{Budget: 1}, "-2 tokens"},
		{"negative penalty", nil, SelectConfig{Budget: 1, RedundancyPenalty: -0.5}, "redundancy penalty"},
		{"NaN penalty", nil, SelectConfig{Budget: 1, RedundancyPenalty: math.NaN()}, "redundancy penalty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Select(tt.pieces, tt.cfg)
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, EstimateTokens("", 4))
	require.Equal(t, 1, EstimateTokens("äöü", 4))
	require.Equal(t, 3, EstimateTokens("abcdefghi", 4))
	require.Equal(t, 3, EstimateTokens("abcdefghi", 0))
	require.Equal(t, 9, EstimateTokens("abcdefghi", 1))
}

func TestSelectGolden(t *testing.T) {
	t.Parallel()
	pieces := []Piece{
		{ID: "core-name", Text: "The user's name is Sam", Score: 1, Pinned: true},
		{ID: "wm-plan", Text: "Current task: plan the next hike to the Zugspitze", Score: 0.68},
		{ID: "ep-hike", Text: "Yesterday I went hiking on the Zugspitze with Anna", Score: 1.82},
		{ID: "ep-hike-2", Text: "Yesterday we went hiking on the Zugspitze with Anna and Ben", Score: 1.75},
		{ID: "sem-anna", Text: "Anna is my sister and lives in Munich", Score: 1.08},
		{ID: "sem-zugspitze", Text: "The Zugspitze is the highest mountain in Germany at 2962 m", Score: 0.81},
		{ID: "proc-pack", Text: "Packing for a hike: water, map, rain jacket, snacks, first-aid kit, headlamp", Score: 0.60},
		{ID: "sem-boots", Text: "My hiking boots are size 43", Score: 0.39},
		{ID: "st-chat", Text: "User asked about weekend weather in the Alps", Score: 0.18},
	}
	var b strings.Builder
	for _, budget := range []int{20, 40, 60, 200} {
		got, err := Select(pieces, SelectConfig{Budget: budget})
		require.NoError(t, err)
		fmt.Fprintf(&b, "budget %d used %d value %.6f\n", budget, got.Used, got.Value)
		for _, c := range got.Chosen {
			fmt.Fprintf(&b, "  %-14s tokens=%2d gain=%.6f redundancy=%.6f\n", c.Piece.ID, c.Piece.Tokens, c.Gain, c.Redundancy)
		}
		fmt.Fprintf(&b, "  skipped %v\n", got.Skipped)
	}
	path := filepath.Join("testdata", "select.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}
