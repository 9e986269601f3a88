package embed

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// cosine returns the cosine of a and b, computed in float64.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// requireUnit checks that v has length dim, only finite values and norm 1.
func requireUnit(t *testing.T, v []float32, dim int) {
	t.Helper()
	require.Len(t, v, dim)
	var ss float64
	for _, x := range v {
		require.False(t, math.IsNaN(float64(x)) || math.IsInf(float64(x), 0))
		ss += float64(x) * float64(x)
	}
	require.InDelta(t, 1.0, math.Sqrt(ss), 1e-5)
}

func newTestHash(t *testing.T, dim int) *Hash {
	t.Helper()
	h, err := NewHash(dim)
	require.NoError(t, err)
	return h
}

func TestNewHash(t *testing.T) {
	t.Parallel()

	tests := []struct {
		dim     int
		model   string
		wantErr bool
	}{
		{dim: 1, model: "hash-v1-1"},
		{dim: 7, model: "hash-v1-7"},
		{dim: 768, model: "hash-v1-768"},
		{dim: DimMax, model: "hash-v1-16000"},
		{dim: 0, wantErr: true},
		{dim: -3, wantErr: true},
		{dim: DimMax + 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.dim), func(t *testing.T) {
			t.Parallel()
			h, err := NewHash(tt.dim)
			if tt.wantErr {
				require.ErrorContains(t, err, "Dim")
				require.Nil(t, h)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.dim, h.Dim())
			require.Equal(t, tt.model, h.Model())
		})
	}
}

func TestHashEmbed(t *testing.T) {
	t.Parallel()

	type testBundle struct {
		h   *Hash
		ctx context.Context
	}
	setup := func(t *testing.T, dim int) *testBundle {
		t.Helper()
		return &testBundle{h: newTestHash(t, dim), ctx: context.Background()}
	}

	t.Run("UnitVectorsInOrder", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 768)
		texts := []string{"The cat sat on the mat.", "Der Hund schläft.", "x"}
		vs, err := b.h.Embed(b.ctx, texts)
		require.NoError(t, err)
		require.Len(t, vs, len(texts))
		for i, v := range vs {
			requireUnit(t, v, 768)
			one, err := b.h.Embed(b.ctx, texts[i:i+1])
			require.NoError(t, err)
			require.Equal(t, one[0], v, "batch and single embedding differ for text %d", i)
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 384)
		a1, err := b.h.Embed(b.ctx, []string{"Remember the meeting on Friday"})
		require.NoError(t, err)
		a2, err := newTestHash(t, 384).Embed(b.ctx, []string{"Remember the meeting on Friday"})
		require.NoError(t, err)
		require.Equal(t, a1, a2)
	})

	t.Run("VectorsAreIndependent", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 16)
		vs, err := b.h.Embed(b.ctx, []string{"alpha", "beta"})
		require.NoError(t, err)
		before := append([]float32(nil), vs[1]...)
		vs[0] = append(vs[0], 1, 2, 3)
		vs[0][0] = 42
		require.Equal(t, before, vs[1])
	})

	t.Run("EmptyInput", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 8)
		vs, err := b.h.Embed(b.ctx, nil)
		require.NoError(t, err)
		require.Empty(t, vs)
	})

	t.Run("CaseAndWidthInsensitive", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 256)
		vs, err := b.h.Embed(b.ctx, []string{"MÜLLER fährt nach Köln", "müller fährt nach köln", "Ｍüller fährt nach Köln"})
		require.NoError(t, err)
		require.Equal(t, vs[0], vs[1])
		require.Equal(t, vs[0], vs[2])
	})

	t.Run("CanceledContext", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 8)
		ctx, cancel := context.WithCancel(b.ctx)
		cancel()
		_, err := b.h.Embed(ctx, []string{"a"})
		require.ErrorIs(t, err, context.Canceled)
	})

	t.Run("ConcurrentUse", func(t *testing.T) {
		t.Parallel()
		b := setup(t, 128)
		want, err := b.h.Embed(b.ctx, benchTexts)
		require.NoError(t, err)
		var wg sync.WaitGroup
		results := make([][][]float32, 8)
		errs := make([]error, 8)
		for g := range results {
			wg.Go(func() { results[g], errs[g] = b.h.Embed(b.ctx, benchTexts) })
		}
		wg.Wait()
		for g := range results {
			require.NoError(t, errs[g])
			require.Equal(t, want, results[g])
		}
	})
}

func TestHashBadInput(t *testing.T) {
	t.Parallel()

	h := newTestHash(t, 64)
	ctx := context.Background()

	t.Run("EmptyOrBlank", func(t *testing.T) {
		t.Parallel()
		for _, text := range []string{"", " ", "\t\n\r", "\u00a0\u2003\u3000"} {
			vs, err := h.Embed(ctx, []string{"fine", text})
			require.ErrorIs(t, err, ErrEmptyText, "text %q", text)
			require.ErrorContains(t, err, "text 1")
			require.Nil(t, vs)
		}
	})

	t.Run("NoWordTokens", func(t *testing.T) {
		t.Parallel()
		vs, err := h.Embed(ctx, []string{"!!!", "👍", "🎉", "… — …"})
		require.NoError(t, err)
		for _, v := range vs {
			requireUnit(t, v, 64)
		}
		require.NotEqual(t, vs[1], vs[2], "different emoji must get different vectors")
	})

	t.Run("InvalidUTF8AndControlBytes", func(t *testing.T) {
		t.Parallel()
		vs, err := h.Embed(ctx, []string{"\xff\xfe abc", "a\x00b", "\xc3", string([]byte{0xed, 0xa0, 0x80})})
		require.NoError(t, err)
		for _, v := range vs {
			requireUnit(t, v, 64)
		}
	})

	t.Run("LongText", func(t *testing.T) {
		t.Parallel()
		long := strings.Repeat("lorem ipsum dolor sit amet ", 64<<10/27)
		vs, err := h.Embed(ctx, []string{long, strings.Repeat("x", 1<<16)})
		require.NoError(t, err)
		requireUnit(t, vs[0], 64)
		requireUnit(t, vs[1], 64)
	})

	t.Run("TinyDimensions", func(t *testing.T) {
		t.Parallel()
		for _, dim := range []int{1, 2, 3} {
			hd := newTestHash(t, dim)
			vs, err := hd.Embed(ctx, benchTexts)
			require.NoError(t, err)
			for _, v := range vs {
				requireUnit(t, v, dim)
			}
		}
	})
}

// TestHashSimilarity checks that a paraphrase sharing words is much closer to
// its anchor than an unrelated sentence, in English and German. The numbers
// obtained at dim 768 are in the comments (paraphrase / unrelated).
func TestHashSimilarity(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, anchor, para, unrelated string
	}{
		{
			"EN/cats", // 0.88 / 0.04
			"My sister adopted two cats from the animal shelter.",
			"Two cats were adopted by my sister from a shelter.",
			"The quarterly budget meeting moved to Thursday afternoon.",
		},
		{
			"EN/deploy", // 0.82 / -0.04
			"The deployment failed because the database migration timed out.",
			"Database migration timeout caused the failed deployment.",
			"I bought fresh strawberries at the farmers market.",
		},
		{
			"EN/morphology", // 0.76 / 0.01
			"I am training for a marathon and run four times a week.",
			"She runs every week because she is training for the marathon.",
			"The printer on the third floor is out of toner.",
		},
		{
			"DE/visit", // 0.94 / -0.06
			"Ich habe gestern meine Großmutter im Krankenhaus besucht.",
			"Gestern besuchte ich die Großmutter im Krankenhaus.",
			"Der Zug nach Hamburg hat heute zwanzig Minuten Verspätung.",
		},
		{
			"DE/meeting", // 0.84 / 0.03
			"Das Meeting wurde auf nächsten Dienstag verschoben.",
			"Wir haben das Meeting auf Dienstag verschoben.",
			"Meine Katze schläft am liebsten auf der Heizung.",
		},
		{
			"DE/compounds", // 0.68 / 0.02
			"Wir fahren im Sommer mit dem Fahrrad an den Bodensee.",
			"Im Sommer geht es mit den Fahrrädern zum Bodensee.",
			"Die Steuererklärung muss bis Ende Juli eingereicht werden.",
		},
	}
	h := newTestHash(t, 768)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vs, err := h.Embed(context.Background(), []string{tt.anchor, tt.para, tt.unrelated})
			require.NoError(t, err)
			para, unrel := cosine(vs[0], vs[1]), cosine(vs[0], vs[2])
			require.Greater(t, para, 0.6, "paraphrase cosine")
			require.Less(t, math.Abs(unrel), 0.15, "unrelated cosine")
			require.Greater(t, para-unrel, 0.5)
		})
	}
}

// TestHashGolden pins the number of non-zero components and the first 8 of
// them (index:value; the vectors are sparse, so the first 8 components alone
// would mostly be zero) of fixed texts, so that any change of the feature
// recipe is noticed (and must bump HashVersion). Regenerate with
// go test ./embed -run TestHashGolden -update.
func TestHashGolden(t *testing.T) {
	t.Parallel()

	h := newTestHash(t, DimDefault)
	texts := []string{
		"Caroline went to the LGBTQ support group on 7 May 2023.",
		"Ich habe gestern meine Großmutter im Krankenhaus besucht.",
	}
	vs, err := h.Embed(context.Background(), texts)
	require.NoError(t, err)
	var b strings.Builder
	fmt.Fprintf(&b, "model %s\n", h.Model())
	for i, v := range vs {
		nonzero := 0
		var first []string
		for j, x := range v {
			if x != 0 {
				nonzero++
				if len(first) < 8 {
					first = append(first, fmt.Sprintf("%d:%.6f", j, x))
				}
			}
		}
		fmt.Fprintf(&b, "text %d nonzero %d first %s\n", i, nonzero, strings.Join(first, " "))
	}
	path := filepath.Join("testdata", "hash.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), b.String())
}
