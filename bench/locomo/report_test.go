package locomo

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// handReport is a fixed report for the writers' golden tests.
func handReport() *Report {
	budgets := func(r5 float64, withContext bool) []BudgetFigures {
		var out []BudgetFigures
		for i, t := range []int{250, 1000, 2000} {
			f := BudgetFigures{Tokens: t, Chars: float64(4 * t), Strict: r5 * float64(i+2) / 4, Lenient: r5 * float64(i+3) / 5}
			if withContext {
				f.ContextStrict, f.ContextChars = new(r5*float64(i+1)/4), new(float64(3*t))
			}
			out = append(out, f)
		}
		return out
	}
	groups := func(r5 float64, withContext bool) []GroupMetrics {
		gs := []GroupMetrics{
			{Group: GroupAll, Questions: 10, Recall5: r5, Recall10: r5 + 0.1, P5: 0.125, MRR: 0.5, NDCG5: 0.45, Budgets: budgets(r5, withContext)},
			{Group: Group1to4, Questions: 8, Recall5: r5 - 0.05, Recall10: r5 + 0.05, P5: 0.1, MRR: 0.4, NDCG5: 0.4, Budgets: budgets(r5-0.05, withContext)},
		}
		for c := 1; c <= 5; c++ {
			gs = append(gs, GroupMetrics{Group: string(rune('0' + c)), Questions: 2, Recall5: r5 / float64(c), Budgets: budgets(r5/float64(c), withContext)})
		}
		return gs
	}
	return &Report{
		Source: "locomo-dev.json",
		Stats: Stats{
			Conversations: 2, Sessions: 4, Turns: 40, Questions: 11, Scored: 10, ExcludedEmptyEvidence: 1,
			PerCategory: map[string]int{"1": 2, "2": 2, "3": 2, "4": 2, "5": 2},
		},
		Cleaning: CleaningReport{
			Fixes:         map[FixKind]int{FixSplit: 1, FixBareD: 2},
			EmptyEvidence: []QuestionRef{{Conversation: "conv-x", Index: 3, Category: 3, Question: "q?"}},
		},
		Settings: Settings{
			Modes: []Mode{PerConversation, SharedPool}, Systems: []string{"bm25", "flat"}, K: 50,
			MRRCutoff: 50, PoolTenant: PoolTenant, QueryTime: "after the last turn", IDCG: "capped at 5",
			Budgets: []int{250, 1000, 2000}, Packing: "hits in rank order",
			Descriptions: map[string]string{"bm25": "Okapi BM25"},
		},
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Seconds:   12.5,
		Results: []Result{
			{
				Mode: PerConversation, System: "bm25", Tenants: 2, Messages: 40, Queries: 10, Groups: groups(0.55, false),
				Budgets: budgets(0.55, false), Top5Sources: 1, Top5Chars: 150,
				IngestSeconds: 0.01, AfterIngestSeconds: 0.2, SearchSeconds: 1.5, SearchMeanMillis: 150,
			},
			{
				Mode: PerConversation, System: "flat", Tenants: 2, Messages: 40, Queries: 10, Groups: groups(0.4, true),
				Budgets: budgets(0.4, true), Top5Sources: 7.5, Top5Chars: 1210, ContextSeconds: 2.25,
			},
			{Mode: SharedPool, System: "bm25", Tenants: 1, Messages: 40, Queries: 10, Groups: groups(0.5, false), Budgets: budgets(0.5, false)},
			{Mode: SharedPool, System: "flat", Tenants: 1, Messages: 40, Queries: 10, Groups: groups(0.375, true), Budgets: budgets(0.375, true)},
		},
	}
}

func TestWriteMarkdownGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, handReport()))
	golden(t, "report.md.golden", b.Bytes())
	// The budget table comes first.
	md := b.String()
	first := strings.Index(md, "\n## ")
	require.Equal(t, "\n## Evidence at a context budget\n", md[first:first+len("\n## Evidence at a context budget\n")])
	require.Less(t, strings.Index(md, "Strict@250"), strings.Index(md, "## Recall@k"))
	require.Contains(t, md, "| per-conversation | bm25 | 0.275 | 0.330 | – | 1000 |", "no context figure for bm25")
	require.Contains(t, md, "| per-conversation | flat | 0.200 | 0.240 | 0.100 | 1000 |")
	require.Contains(t, md, "| 1.00 | 150 |", "top-5 hit sizes beside R@k")
}

func TestWriteResults(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "results", "locomo")
	rep := handReport()
	require.NoError(t, WriteResults(dir, rep))

	raw, err := os.ReadFile(filepath.Join(dir, ResultsJSON))
	require.NoError(t, err)
	var back Report
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, *rep, back, "the JSON holds every figure")
	require.Contains(t, string(raw), `"recall_5": 0.55`)
	require.Contains(t, string(raw), `"budgets": [`)
	require.Contains(t, string(raw), `"context_strict": 0.1`)
	require.Contains(t, string(raw), `"top5_sources": 7.5`)

	md, err := os.ReadFile(filepath.Join(dir, ResultsMarkdown))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(md), "# LoCoMo retrieval benchmark"))

	f, err := os.Open(filepath.Join(dir, ResultsChart))
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	require.Greater(t, img.Bounds().Dx(), 300)
	require.Greater(t, img.Bounds().Dy(), 200)

	// Writing again overwrites.
	require.NoError(t, WriteResults(dir, rep))

	// Errors: nil report, a directory that is a file.
	require.Error(t, WriteResults(dir, nil))
	require.Error(t, WriteJSON(&bytes.Buffer{}, nil))
	require.Error(t, WriteMarkdown(&bytes.Buffer{}, nil))
	require.Error(t, WriteChart(&bytes.Buffer{}, nil))
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	require.Error(t, WriteResults(filepath.Join(file, "sub"), rep))
}

func TestWriteChartEdgeCases(t *testing.T) {
	t.Parallel()
	// A report with one mode, one system and a missing result still renders.
	rep := handReport()
	rep.Settings.Modes = []Mode{SharedPool}
	rep.Settings.Systems = []string{"bm25", "missing"}
	var b bytes.Buffer
	require.NoError(t, WriteChart(&b, rep))
	_, err := png.Decode(&b)
	require.NoError(t, err)
	require.Error(t, WriteChart(&b, &Report{}))
	require.Error(t, WriteChart(&b, &Report{Settings: Settings{Systems: []string{"x"}}}))
}

// TestCleaningGoldenRealFile pins every evidence repair of the development
// file (ids only, no conversation text).
func TestCleaningGoldenRealFile(t *testing.T) {
	t.Parallel()
	ds := loadReal(t)
	var b strings.Builder
	for _, c := range ds.Conversations {
		for _, q := range c.Questions {
			if len(q.Fixes) == 0 && len(q.Evidence) > 0 {
				continue
			}
			fixes, err := json.Marshal(q.Fixes)
			require.NoError(t, err)
			ev, err := json.Marshal(q.Evidence)
			require.NoError(t, err)
			b.WriteString(c.SampleID + " qa[" + strconv.Itoa(q.Index) + "] category " + strconv.Itoa(q.Category) +
				": evidence " + string(ev) + " fixes " + string(fixes) + "\n")
		}
	}
	golden(t, "cleaning-dev.golden", []byte(b.String()))
}
