package reliability

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/cmd/zbctl/zbctlcli"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the generated sections of docs/reliability.md")

// docPath is the document that holds the bad-input table.
const docPath = "../../docs/reliability.md"

// Markers around the generated bad-input table in docPath.
const (
	matrixBegin = "<!-- BEGIN bad-input matrix: generated from integration/reliability/badinput_test.go; regenerate with go test ./integration/reliability -run TestBadInputMatrix -update -->"
	matrixEnd   = "<!-- END bad-input matrix -->"
)

// tenant is the tenant of the matrix.
const tenant = "bi"

// want is the documented outcome of one bad input: a coordinator sentinel (matched with
// errors.Is), a SQLSTATE (SQL surface), a message (CLI and MCP: the text a user sees), or
// success with rows new memories.
type want struct {
	err   error
	state string
	msg   string
	rows  int
}

// bcase is one row of the matrix.
type bcase struct {
	surface string
	input   string
	want    want
	note    string
	run     func(t *testing.T, h *bharness) error
	check   func(t *testing.T, h *bharness)
}

// bharness is the matrix's world: one database, coordinators, an MCP session and the CLI.
type bharness struct {
	url  string
	pool *pgxpool.Pool
	co   *coordinator.Coordinator // defaults (64 KiB content limit)
	big  *coordinator.Coordinator // MaxContentBytes 1 MiB, the database's limit
	mcp  *mcp.ClientSession
	// export is an export (JSON Lines) of tenant "exp": a header and two memories, one with a
	// date and one core.
	export string
}

var sentinels = []struct {
	err  error
	name string
}{
	{coordinator.ErrEmptyContent, "ErrEmptyContent"},
	{coordinator.ErrContentTooLarge, "ErrContentTooLarge"},
	{coordinator.ErrInvalidUTF8, "ErrInvalidUTF8"},
	{coordinator.ErrUnknownLayer, "ErrUnknownLayer"},
	{coordinator.ErrInvalidTenant, "ErrInvalidTenant"},
	{coordinator.ErrDimensionMismatch, "ErrDimensionMismatch"},
	{coordinator.ErrInvalidEmbedding, "ErrInvalidEmbedding"},
	{coordinator.ErrInvalidK, "ErrInvalidK"},
	{coordinator.ErrDuplicate, "ErrDuplicate"},
	{coordinator.ErrConflict, "ErrConflict"},
	{coordinator.ErrNotFound, "ErrNotFound"},
	{coordinator.ErrInvalidInput, "ErrInvalidInput"},
	{coordinator.ErrUnavailable, "ErrUnavailable"},
	{coordinator.ErrTimeout, "ErrTimeout"},
}

func sentinelName(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return fmt.Sprintf("%v", err)
}

// outcome renders the want column of the documentation table.
func (w want) outcome() string {
	switch {
	case w.err != nil:
		return "`" + sentinelName(w.err) + "`"
	case w.state != "":
		return "SQLSTATE `" + w.state + "`"
	case w.msg != "":
		return "error “" + w.msg + "”"
	case w.rows == 1:
		return "ok, 1 memory"
	case w.rows > 1:
		return fmt.Sprintf("ok, %d memories", w.rows)
	}
	return "ok, nothing stored"
}

func si(content string) coordinator.StoreInput {
	return coordinator.StoreInput{TenantID: tenant, Content: content}
}

func store(in coordinator.StoreInput) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		_, err := h.co.Store(context.Background(), in)
		return err
	}
}

func storeBig(in coordinator.StoreInput) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		_, err := h.big.Store(context.Background(), in)
		return err
	}
}

func recall(query string, opts *coordinator.RecallOpts) func(*testing.T, *bharness) error {
	return recallAs(tenant, query, opts)
}

func recallAs(ten, query string, opts *coordinator.RecallOpts) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		_, err := h.co.Recall(context.Background(), ten, query, opts)
		return err
	}
}

func batch(items ...coordinator.StoreInput) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		_, err := h.co.StoreBatch(context.Background(), items)
		return err
	}
}

func sqlExec(query string, args ...any) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		_, err := h.pool.Exec(context.Background(), query, args...)
		return err
	}
}

// sqlValue runs query and compares its single text result (NULL as "NULL") with want.
func sqlValue(query, wantV string, args ...any) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		var v *string
		if err := h.pool.QueryRow(context.Background(), query, args...).Scan(&v); err != nil {
			return err
		}
		got := "NULL"
		if v != nil {
			got = *v
		}
		if got != wantV {
			return fmt.Errorf("%s returned %s, want %s", query, got, wantV)
		}
		return nil
	}
}

func cli(stdin string, args ...string) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		env := map[string]string{"ZB_DATABASE_URL": h.url, "ZB_TENANT": tenant}
		var out, errb bytes.Buffer
		code := zbctlcli.RunContext(context.Background(), args, func(k string) string { return env[k] },
			strings.NewReader(stdin), &out, &errb)
		if code != 0 {
			return fmt.Errorf("exit %d: %s%s", code, errb.String(), out.String())
		}
		return nil
	}
}

func mcpCall(name string, args map[string]any) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		res, err := h.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		if res.IsError {
			var msg []string
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					msg = append(msg, tc.Text)
				}
			}
			return errors.New(strings.Join(msg, "; "))
		}
		return nil
	}
}

// stored checks that exactly one memory of the tenant holds content verbatim.
func stored(content string) func(*testing.T, *bharness) {
	return func(t *testing.T, h *bharness) {
		var n int
		require.NoError(t, h.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM zb.memory WHERE tenant_id = $1 AND content = $2`, tenant, content).Scan(&n))
		require.Equal(t, 1, n, "content stored verbatim")
	}
}

// recalled checks that recall of query returns content first.
func recalled(query, content string) func(*testing.T, *bharness) {
	return func(t *testing.T, h *bharness) {
		res, err := h.co.Recall(context.Background(), tenant, query, &coordinator.RecallOpts{K: 3, ReadOnly: true})
		require.NoError(t, err)
		require.NotEmpty(t, res.Results)
		require.Equal(t, content, res.Results[0].Content)
	}
}

func vec(f func(i int) float32) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

func ptrTime(t time.Time) *time.Time { return &t }

// hundredKTokens is a text of 100,000 word tokens (about 650 KB) drawn from 2,000 distinct
// words.
func hundredKTokens() string {
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "w%dx ", (i*7919)%2000)
	}
	return b.String()
}

// distinctTokens is about n bytes of pairwise distinct words.
func distinctTokens(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n-16; i++ {
		fmt.Fprintf(&b, "t%07dq ", i)
	}
	return b.String()
}

// concurrentCoreUpserts stores n different values under one new core label at once, with or
// without Retry, and returns an error unless every call succeeded or failed with ErrConflict
// (without retry), and exactly one live memory holds the label with one of the values.
func concurrentCoreUpserts(label string, n int, retry bool) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		ctx := context.Background()
		start := make(chan struct{})
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				in := coordinator.StoreInput{
					TenantID: tenant, Layer: coordinator.LayerCore, CoreLabel: label,
					Content: fmt.Sprintf("value %d of %s", i, label),
				}
				if retry {
					_, errs[i] = coordinator.Retry(ctx, &coordinator.RetryOpts{MaxAttempts: 20},
						func(ctx context.Context) (*coordinator.StoreResult, error) { return h.co.Store(ctx, in) })
				} else {
					_, errs[i] = h.co.Store(ctx, in)
				}
			})
		}
		close(start)
		wg.Wait()
		conflicts := 0
		for _, err := range errs {
			switch {
			case err == nil:
			case !retry && errors.Is(err, coordinator.ErrConflict) && coordinator.IsRetryable(err):
				conflicts++
			default:
				return err
			}
		}
		var live int
		var content string
		if err := h.pool.QueryRow(ctx, `SELECT count(*), max(content) FROM zb.memory
			WHERE tenant_id = $1 AND core_label = $2 AND status = 'active'`, tenant, label).Scan(&live, &content); err != nil {
			return err
		}
		if live != 1 || !strings.HasSuffix(content, " of "+label) {
			return fmt.Errorf("%d live memories for label %s (%q)", live, label, content)
		}
		t.Logf("%d concurrent upserts of %s: %d ErrConflict", n, label, conflicts)
		return nil
	}
}

// exportAt is the event time of the exported episode.
var exportAt = time.Date(2024, 5, 8, 14, 0, 0, 0, time.UTC)

// importData imports the JSON Lines that data returns (given the harness's export) into tenant
// "imp".
func importData(data func(export string) string) func(*testing.T, *bharness) error {
	return func(t *testing.T, h *bharness) error {
		_, err := h.co.Import(context.Background(), "imp", strings.NewReader(data(h.export)), nil)
		return err
	}
}

// exportLines returns the export's lines (each with its newline).
func exportLines(export string) []string {
	return strings.SplitAfter(strings.TrimSuffix(export, "\n"), "\n")
}

// matrix returns the bad-input cases in table order.
func matrix() []bcase {
	sess := uuid.New()
	year1 := time.Date(1, 1, 1, 12, 0, 0, 0, time.UTC)
	year9999 := time.Date(9999, 12, 30, 12, 0, 0, 0, time.UTC)
	rtl := "مرحبا، اسمي ليلى وأعيش في القاهرة \u202Eabc\u202C שלום"
	emoji := "🧠💾 remembers 👩‍👩‍👧 family photos 🏔️ and 🇨🇭 flags"
	ctrl := "bell\x07 escape\x1b[31m red\x1b[0m tab\tcarriage\rreturn\x7f"
	meta := `Robert'); DROP TABLE zb.memory; -- 100% _under_ \\back $1 ::text`
	zero := vec(func(int) float32 { return 0 })
	good := vec(func(i int) float32 { return float32(i%5) + 1 })
	nan := vec(func(i int) float32 { return float32(i) + 1 })
	nan[3] = float32(math.NaN())
	inf := vec(func(i int) float32 { return 1 })
	inf[0] = float32(math.Inf(1))
	big := strings.Repeat("x", coordinator.MaxContentBytesDefault)
	vecText := func(v string) string { return "[" + strings.TrimSuffix(strings.Repeat(v+",", dim), ",") + "]" }

	return []bcase{
		// Store.
		{surface: "store", input: "empty content", want: want{err: coordinator.ErrEmptyContent}, run: store(si(""))},
		{
			surface: "store", input: "white space only (spaces, tab, newlines, U+3000)", want: want{err: coordinator.ErrEmptyContent},
			run: store(si(" \t\n\r\u3000 ")),
		},
		{surface: "store", input: "content of 64 KiB (the default limit)", want: want{rows: 1}, run: store(si(big))},
		{surface: "store", input: "content of 64 KiB + 1 byte", want: want{err: coordinator.ErrContentTooLarge}, run: store(si(big + "y"))},
		{
			surface: "store", input: "100k-token text (650 KB), default limit", want: want{err: coordinator.ErrContentTooLarge},
			run: store(si(hundredKTokens())),
		},
		{
			surface: "store", input: "100k-token text (650 KB), MaxContentBytes 1 MiB", want: want{rows: 1},
			note: "stored, indexed and embedded", run: storeBig(si(hundredKTokens())),
		},
		{
			surface: "store", input: "1 MiB of distinct words, MaxContentBytes 1 MiB", want: want{err: coordinator.ErrContentTooLarge},
			note: "its text-search vector exceeds PostgreSQL's 1 MB tsvector limit (SQLSTATE 54000)",
			run:  storeBig(coordinator.StoreInput{TenantID: tenant, Content: distinctTokens(1 << 20), Embedding: good}),
		},
		{
			surface: "store", input: "one 10,000-character word (a base64 blob)", want: want{rows: 1},
			note: "stored; the word is too long to index", run: store(si("blob " + strings.Repeat("QUJD", 2500))),
		},
		{
			surface: "store", input: "one 64 KiB word", want: want{rows: 1},
			note: "stored in milliseconds (the emotion tagger splits only words ≤ 64 letters as compounds)",
			run:  store(si(strings.Repeat("y", coordinator.MaxContentBytesDefault))),
		},
		{surface: "store", input: "invalid UTF-8 (0xff 0xfe)", want: want{err: coordinator.ErrInvalidUTF8}, run: store(si("bad \xff\xfe bytes"))},
		{
			surface: "store", input: "NUL byte", want: want{err: coordinator.ErrInvalidUTF8}, note: "PostgreSQL text cannot hold NUL",
			run: store(si("nul \x00 inside")),
		},
		{
			surface: "store", input: "control characters (BEL, ESC sequences, CR, DEL)", want: want{rows: 1},
			note: "stored verbatim", run: store(si(ctrl)), check: stored(ctrl),
		},
		{
			surface: "store", input: "right-to-left text (Arabic, Hebrew, U+202E override)", want: want{rows: 1},
			note: "stored verbatim, recalled by its words", run: store(si(rtl)), check: func(t *testing.T, h *bharness) {
				stored(rtl)(t, h)
				recalled("القاهرة", rtl)(t, h)
			},
		},
		{
			surface: "store", input: "emoji, ZWJ sequences and flags", want: want{rows: 1}, note: "stored verbatim, recalled",
			run: store(si(emoji)), check: func(t *testing.T, h *bharness) {
				stored(emoji)(t, h)
				recalled("family photos 👩‍👩‍👧", emoji)(t, h)
			},
		},
		{
			surface: "store", input: "SQL metacharacters (`'); DROP TABLE …; --`, `%`, `_`, `\\`, `$1`)", want: want{rows: 1},
			note: "stored verbatim; parameters are bound, never spliced", run: store(si(meta)), check: stored(meta),
		},
		{
			surface: "store", input: "tenant empty", want: want{err: coordinator.ErrInvalidTenant},
			run: store(coordinator.StoreInput{Content: "x"}),
		},
		{
			surface: "store", input: "tenant with SQL (`x'; DROP SCHEMA zb; --`)", want: want{err: coordinator.ErrInvalidTenant},
			run: store(coordinator.StoreInput{TenantID: "x'; DROP SCHEMA zb; --", Content: "x"}),
		},
		{
			surface: "store", input: "tenant of 129 characters", want: want{err: coordinator.ErrInvalidTenant},
			run: store(coordinator.StoreInput{TenantID: strings.Repeat("t", 129), Content: "x"}),
		},
		{
			surface: "store", input: "tenant with non-ASCII letters (`tënant`)", want: want{err: coordinator.ErrInvalidTenant},
			run: store(coordinator.StoreInput{TenantID: "tënant", Content: "x"}),
		},
		{
			surface: "store", input: "unknown tenant (valid id)", want: want{rows: 1}, note: "the tenant is created on first use",
			run: store(coordinator.StoreInput{TenantID: "new-tenant", Content: "first memory"}),
		},
		{
			surface: "store", input: "unknown layer `limbic`", want: want{err: coordinator.ErrUnknownLayer},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Layer: "limbic"}),
		},
		{
			surface: "store", input: "unknown kind `poem`", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Kind: "poem"}),
		},
		{
			surface: "store", input: "context `Work Stuff` (upper case, space)", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Context: "Work Stuff"}),
		},
		{
			surface: "store", input: "unknown but valid context `brand-new`", want: want{rows: 1}, note: "contexts are names, created on use",
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "a memory in a new context", Context: "brand-new"}),
		},
		{
			surface: "store", input: "layer core without a label", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Layer: coordinator.LayerCore}),
		},
		{
			surface: "store", input: "core label with layer semantic", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Layer: coordinator.LayerSemantic, CoreLabel: "name"}),
		},
		{
			surface: "store", input: "core label of 201 characters", want: want{err: coordinator.ErrContentTooLarge},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", CoreLabel: strings.Repeat("l", 201)}),
		},
		{
			surface: "store", input: "layer working without a session", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Layer: coordinator.LayerWorking}),
		},
		{
			surface: "store", input: "duplicate core label, same value", want: want{rows: 1}, note: "second store: outcome unchanged, no new row",
			run: func(t *testing.T, h *bharness) error {
				in := coordinator.StoreInput{TenantID: tenant, CoreLabel: "name", Content: "My name is Sam"}
				for _, wantOutcome := range []string{coordinator.OutcomeCreated, coordinator.OutcomeUnchanged} {
					res, err := h.co.Store(context.Background(), in)
					if err != nil {
						return err
					}
					if res.Outcome != wantOutcome {
						return fmt.Errorf("outcome %s, want %s", res.Outcome, wantOutcome)
					}
				}
				return nil
			},
		},
		{
			surface: "store", input: "duplicate core label, new value", want: want{}, note: "outcome updated in place; the old value is in the audit event",
			run: func(t *testing.T, h *bharness) error {
				res, err := h.co.Store(context.Background(), coordinator.StoreInput{TenantID: tenant, CoreLabel: "name", Content: "My name is Samantha"})
				if err == nil && res.Outcome != coordinator.OutcomeUpdated {
					return fmt.Errorf("outcome %s, want updated", res.Outcome)
				}
				return err
			}, check: stored("My name is Samantha"),
		},
		{
			surface: "store", input: "8 concurrent upserts of one new core label", want: want{rows: 1},
			note: "each call succeeds or returns `ErrConflict` (retryable); exactly one live memory", run: concurrentCoreUpserts("colour", 8, false),
		},
		{
			surface: "store", input: "8 concurrent upserts of one new core label with `Retry`", want: want{rows: 1},
			note: "all 8 succeed; exactly one live memory", run: concurrentCoreUpserts("city", 8, true),
		},
		{
			surface: "store", input: "duplicate ExternalID", want: want{err: coordinator.ErrDuplicate}, note: "also matches `ErrConflict`; not retryable",
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "imported again", ExternalID: "dup-1"}),
		},
		{
			surface: "store", input: "ExternalID with invalid UTF-8", want: want{err: coordinator.ErrInvalidUTF8},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", ExternalID: "id-\xc3"}),
		},
		{
			surface: "store", input: "OccurredAt 0001-01-01 with “yesterday”", want: want{rows: 1},
			note: "“yesterday” resolves to 1 BC", run: store(coordinator.StoreInput{TenantID: tenant, Content: "Yesterday we founded the town", OccurredAt: &year1}),
		},
		{
			surface: "store", input: "OccurredAt 9999-12-30 with “next year”", want: want{rows: 1},
			note: "“next year” resolves to 10000", run: store(coordinator.StoreInput{TenantID: tenant, Content: "Next year the comet returns", OccurredAt: &year9999}),
		},
		{
			surface: "store", input: "“9999 years ago …” in the content", want: want{rows: 1},
			note: "an event span before 4713 BC is left out", run: store(si("9999 years ago the glaciers retreated")),
		},
		{
			surface: "store", input: "OccurredAt in year 0", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", OccurredAt: ptrTime(time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC))}),
		},
		{
			surface: "store", input: "OccurredAt in year 10000", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", OccurredAt: ptrTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}),
		},
		{
			surface: "store", input: "embedding with NaN", want: want{err: coordinator.ErrInvalidEmbedding},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Embedding: nan}),
		},
		{
			surface: "store", input: "embedding with +Inf", want: want{err: coordinator.ErrInvalidEmbedding},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Embedding: inf}),
		},
		{
			surface: "store", input: "embedding of zeros", want: want{err: coordinator.ErrInvalidEmbedding},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Embedding: zero}),
		},
		{
			surface: "store", input: "embedding of the wrong dimension (dim − 1)", want: want{err: coordinator.ErrDimensionMismatch},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Embedding: good[:dim-1]}),
		},
		{
			surface: "store", input: "embedding empty (not nil)", want: want{err: coordinator.ErrDimensionMismatch},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Embedding: []float32{}}),
		},
		{
			surface: "store", input: "precomputed embedding of the right dimension", want: want{rows: 1},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "an externally embedded memory", Embedding: good, EmbeddingModel: "ext-1"}),
		},
		{
			surface: "store", input: "Importance NaN", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Importance: math.NaN()}),
		},
		{
			surface: "store", input: "Importance 1.5", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Importance: 1.5}),
		},
		{
			surface: "store", input: "source id −1", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", SourceIDs: []int64{-1}}),
		},
		{
			surface: "store", input: "metadata that JSON cannot encode (NaN)", want: want{err: coordinator.ErrInvalidInput},
			run: store(coordinator.StoreInput{TenantID: tenant, Content: "x", Metadata: map[string]any{"score": math.NaN()}}),
		},
		{
			surface: "store", input: "skill step with invalid UTF-8", want: want{err: coordinator.ErrInvalidUTF8},
			run: store(coordinator.StoreInput{
				TenantID: tenant, Content: "how to deploy", Layer: coordinator.LayerProcedural,
				Skill: &coordinator.Skill{Trigger: "deploy", Steps: []string{"build", "push \xff"}},
			}),
		},

		// Recall.
		{surface: "recall", input: "empty query", want: want{err: coordinator.ErrEmptyContent}, run: recall("", nil)},
		{surface: "recall", input: "invalid UTF-8 query", want: want{err: coordinator.ErrInvalidUTF8}, run: recall("\xff", nil)},
		{surface: "recall", input: "NUL in the query", want: want{err: coordinator.ErrInvalidUTF8}, run: recall("a\x00b", nil)},
		{surface: "recall", input: "query of 64 KiB + 1 byte", want: want{err: coordinator.ErrContentTooLarge}, run: recall(big+"y", nil)},
		{surface: "recall", input: "k = −1", want: want{err: coordinator.ErrInvalidK}, run: recall("colour", &coordinator.RecallOpts{K: -1})},
		{surface: "recall", input: "k = 1001 (MaxK + 1)", want: want{err: coordinator.ErrInvalidK}, run: recall("colour", &coordinator.RecallOpts{K: 1001})},
		{surface: "recall", input: "k = MaxInt64", want: want{err: coordinator.ErrInvalidK}, run: recall("colour", &coordinator.RecallOpts{K: math.MaxInt})},
		{surface: "recall", input: "k = 1000 (MaxK)", want: want{}, note: "returns every match (at most 1000)", run: recall("colour", &coordinator.RecallOpts{K: 1000})},
		{surface: "recall", input: "unknown tenant (valid id)", want: want{}, note: "a tenant that stored nothing recalls nothing, without error", run: recallAs("nobody-here", "colour", nil)},
		{surface: "recall", input: "unknown tenant, ReadOnly", want: want{}, note: "empty result", run: recallAs("nobody-here", "colour", &coordinator.RecallOpts{ReadOnly: true})},
		{surface: "recall", input: "invalid tenant id", want: want{err: coordinator.ErrInvalidTenant}, run: recallAs("a b", "colour", nil)},
		{
			surface: "recall", input: "unknown layer in Layers", want: want{err: coordinator.ErrUnknownLayer},
			run: recall("colour", &coordinator.RecallOpts{Layers: []coordinator.Layer{"semantic", "limbic"}}),
		},
		{
			surface: "recall", input: "invalid context name in Contexts", want: want{err: coordinator.ErrInvalidInput},
			run: recall("colour", &coordinator.RecallOpts{Contexts: []string{"BAD ctx"}}),
		},
		{
			surface: "recall", input: "unknown but valid context", want: want{}, note: "empty result",
			run: recall("colour", &coordinator.RecallOpts{Contexts: []string{"never-used"}}),
		},
		{
			surface: "recall", input: "SQL metacharacters (`' OR 1=1; --`)", want: want{}, note: "an ordinary query; only the tenant's memories",
			run: recall("' OR 1=1; -- DROP TABLE", nil),
		},
		{
			surface: "recall", input: "punctuation only (`?!…`)", want: want{}, note: "lexical-only recall (no embeddable feature), empty result",
			run: recall("?!…", nil),
		},
		{
			surface: "recall", input: "“what happened 9999 years ago?”", want: want{},
			note: "the range (about 7970 BC) is clamped to PostgreSQL's timestamps (from 4713 BC): empty result",
			run:  recall("what happened 9999 years ago?", nil),
		},
		{
			surface: "recall", input: "AsOf 0001-01-01", want: want{}, note: "nothing was valid then: empty result",
			run: recall("colour", &coordinator.RecallOpts{AsOf: &year1}),
		},
		{surface: "recall", input: "AsOf 9999-12-30", want: want{}, run: recall("colour", &coordinator.RecallOpts{AsOf: &year9999})},

		// StoreBatch.
		{surface: "batch", input: "empty batch", want: want{}, run: batch()},
		{
			surface: "batch", input: "MaxBatch + 1 items", want: want{err: coordinator.ErrInvalidInput},
			run: func(t *testing.T, h *bharness) error {
				_, err := h.co.StoreBatch(context.Background(), make([]coordinator.StoreInput, coordinator.MaxBatch+1))
				return err
			},
		},
		{
			surface: "batch", input: "3 items, the 2nd with invalid UTF-8", want: want{err: coordinator.ErrInvalidUTF8}, note: "nothing written",
			run: batch(si("batch one"), si("batch \xff two"), si("batch three")),
		},
		{
			surface: "batch", input: "a core item", want: want{err: coordinator.ErrInvalidInput}, note: "core needs Store (an upsert)",
			run: batch(si("batch one"), coordinator.StoreInput{TenantID: tenant, Content: "x", CoreLabel: "l"}),
		},
		{
			surface: "batch", input: "two items with the same ExternalID", want: want{err: coordinator.ErrDuplicate}, note: "nothing written",
			run: batch(coordinator.StoreInput{TenantID: tenant, Content: "b1", ExternalID: "bdup"},
				coordinator.StoreInput{TenantID: tenant, Content: "b2", ExternalID: "bdup"}),
		},
		{
			surface: "batch", input: "an item with a wrong-dimension embedding", want: want{err: coordinator.ErrDimensionMismatch},
			run: batch(si("batch one"), coordinator.StoreInput{TenantID: tenant, Content: "x", Embedding: good[:3]}),
		},
		{
			surface: "batch", input: "50 near-identical facts at one instant, then derive", want: want{rows: 50},
			note: "derive's debate supersedes them in order (valid_to > valid_from); all derived", run: func(t *testing.T, h *bharness) error {
				items := make([]coordinator.StoreInput, 50)
				for i := range items {
					items[i] = coordinator.StoreInput{TenantID: "near", Content: fmt.Sprintf("batch memory %d about Dave and Erin", i)}
				}
				if _, err := h.co.StoreBatch(context.Background(), items); err != nil {
					return err
				}
				rep, err := h.co.Derive(context.Background(), jobs.DeriveArgs{TenantID: "near", Pending: true}, nil)
				if err != nil {
					return err
				}
				if len(rep.Derived) != 50 {
					return fmt.Errorf("%d derived", len(rep.Derived))
				}
				return nil
			},
		},
		{
			surface: "batch", input: "items of two tenants, one unknown", want: want{rows: 2}, note: "both tenants exist afterwards",
			run: batch(si("batch for bi"), coordinator.StoreInput{TenantID: "batch-new", Content: "batch for a new tenant"}),
		},

		// Import (JSON Lines, the format of Export).
		{surface: "import", input: "an export of two memories", want: want{rows: 2}, run: importData(func(e string) string { return e })},
		{
			surface: "import", input: "the same export again", want: want{}, note: "nothing added: records are keyed by origin and id",
			run: importData(func(e string) string { return e }),
		},
		{surface: "import", input: "empty input", want: want{}, note: "nothing to import", run: importData(func(string) string { return "" })},
		{
			surface: "import", input: "a truncated line (`{\"type\":\"memory\",`)", want: want{err: coordinator.ErrInvalidInput},
			note: "`*ImportError` names the line; nothing written", run: importData(func(e string) string { return e + `{"type":"memory",` + "\n" }),
		},
		{
			surface: "import", input: "the export cut in the middle of a line", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string { return e[:len(e)-20] }),
		},
		{
			surface: "import", input: "a JSON array line, a number line", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string { return e + "[1, 2]\n42\n" }),
		},
		{
			surface: "import", input: "a line of invalid UTF-8 bytes", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string { return e + "\xff\xfe\n" }),
		},
		{
			surface: "import", input: "unknown record type", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string { return e + `{"type":"poem","text":"x"}` + "\n" }),
		},
		{
			surface: "import", input: "unknown field in a memory record", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string {
				return strings.Replace(e, `"type":"memory",`, `"type":"memory","colour":"green",`, 1)
			}),
		},
		{
			surface: "import", input: "memory with layer `limbic`", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string { return strings.Replace(e, `"layer":"episodic"`, `"layer":"limbic"`, 1) }),
		},
		{
			surface: "import", input: "memory content with `\\u0000`", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string {
				return strings.Replace(e, `"content":"Yesterday`, `"content":"\u0000Yesterday`, 1)
			}),
		},
		{
			surface: "import", input: "memory content empty", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string {
				return strings.Replace(e, `"content":"Yesterday Ivan repaired the harbor crane"`, `"content":""`, 1)
			}),
		},
		{
			surface: "import", input: "occurred_at in year 10000 (`+10000-…`)", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string {
				return strings.Replace(e, `"occurred_at":"2024-05-08T14:00:00Z"`, `"occurred_at":"+10000-05-08T14:00:00Z"`, 1)
			}),
		},
		{
			surface: "import", input: "header of export version 99", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string {
				return strings.Replace(e, fmt.Sprintf(`"version":%d`, coordinator.ExportVersion), `"version":99`, 1)
			}),
		},
		{
			surface: "import", input: "a second header line", want: want{err: coordinator.ErrInvalidInput},
			run: importData(func(e string) string { return e + exportLines(e)[0] }),
		},
		{
			surface: "import", input: "valid memories, then one bad line", want: want{err: coordinator.ErrInvalidInput},
			note: "validated in full before anything is written: nothing written", run: importData(func(e string) string {
				return strings.Replace(e, `/exp"`, `/exp2"`, 1) + `{"type":"memory","layer":"semantic"}` + "\n"
			}),
		},
		{
			surface: "import", input: "the export's core label again, another value", want: want{}, note: "the label is upserted in place (no new row)",
			run: importData(func(e string) string {
				return strings.Replace(strings.Replace(e, `I am the harbor master`, `I am the harbor pilot`, 1), `/exp"`, `/exp3"`, 1)
			}),
		},

		// SQL functions.
		{surface: "sql", input: "`zb.remember(NULL, 'x')`", want: want{state: "22023"}, run: sqlExec(`SELECT zb.remember(NULL, 'x')`)},
		{surface: "sql", input: "`zb.remember('bad tenant!', 'x')`", want: want{state: "22023"}, run: sqlExec(`SELECT zb.remember('bad tenant!', 'x')`)},
		{surface: "sql", input: "`zb.remember(t, '  ')`", want: want{state: "22023"}, run: sqlExec(`SELECT zb.remember($1, '  ')`, tenant)},
		{
			surface: "sql", input: "zb.remember with a NUL byte (bound parameter)", want: want{state: "22021"},
			run: sqlExec(`SELECT zb.remember($1, $2)`, tenant, "a\x00b"),
		},
		{
			surface: "sql", input: "zb.remember with invalid UTF-8 (bound parameter)", want: want{state: "22021"},
			run: sqlExec(`SELECT zb.remember($1, $2)`, tenant, "a\xffb"),
		},
		{
			surface: "sql", input: "zb.remember layer core without a label", want: want{state: "22023"},
			run: sqlExec(`SELECT zb.remember($1, 'x', 'core')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember unknown layer `'limbic'`", want: want{state: "22P02"},
			run: sqlExec(`SELECT zb.remember($1, 'x', 'limbic')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember context `'Bad Context'`", want: want{state: "23514"},
			run: sqlExec(`SELECT zb.remember($1, 'x', p_context => 'Bad Context')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember metadata a JSON array", want: want{state: "23514"},
			run: sqlExec(`SELECT zb.remember($1, 'x', p_metadata => '[1, 2]')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember malformed JSON metadata `'{\"a\":'`", want: want{state: "22P02"},
			run: sqlExec(`SELECT zb.remember($1, 'x', p_metadata => '{"a":')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember occurred_at `'infinity'`", want: want{state: "23514"},
			run: sqlExec(`SELECT zb.remember($1, 'x', p_occurred_at => 'infinity')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember occurred_at 0001-01-01 and 9999-12-31", want: want{rows: 2},
			run: sqlExec(`SELECT zb.remember($1, 'year one', p_occurred_at => '0001-01-01 00:00Z'),
				zb.remember($1, 'year 9999', p_occurred_at => '9999-12-31 00:00Z')`, tenant),
		},
		{
			surface: "sql", input: "zb.remember content of 1 MiB + 1 byte", want: want{state: "23514"},
			run: sqlExec(`SELECT zb.remember($1, repeat('x', 1048577))`, tenant),
		},
		{
			surface: "sql", input: "zb.remember SQL metacharacters", want: want{rows: 1}, note: "stored verbatim",
			run: sqlExec(`SELECT zb.remember($1, $2)`, tenant, meta+" (sql)"), check: stored(meta + " (sql)"),
		},
		{
			surface: "sql", input: "zb.remember duplicate external_id", want: want{state: "23505"},
			run: sqlExec(`SELECT zb.remember($1, 'again', p_external_id => 'dup-1')`, tenant),
		},
		{surface: "sql", input: "`zb.recall(t, '')`", want: want{state: "22023"}, run: sqlExec(`SELECT * FROM zb.recall($1, '')`, tenant)},
		{
			surface: "sql", input: "zb.recall k = 0, −5, 1001", want: want{state: "22023"},
			run: func(t *testing.T, h *bharness) error {
				var last error
				for _, k := range []int{0, -5, 1001} {
					_, err := h.pool.Exec(context.Background(), `SELECT * FROM zb.recall($1, 'colour', p_k => $2)`, tenant, k)
					var pgErr *pgconn.PgError
					if !errors.As(err, &pgErr) || pgErr.Code != "22023" {
						return fmt.Errorf("k %d: %w", k, err)
					}
					last = err
				}
				return last
			},
		},
		{
			surface: "sql", input: "zb.recall unknown class `'bogus'`", want: want{state: "22023"},
			run: sqlExec(`SELECT * FROM zb.recall($1, 'colour', p_class => 'bogus')`, tenant),
		},
		{
			surface: "sql", input: "zb.recall embedding of the wrong dimension", want: want{state: "22000"},
			run: sqlExec(`SELECT * FROM zb.recall($1, 'colour', '[1,2,3]'::vector)`, tenant),
		},
		{
			surface: "sql", input: "zb.recall embedding with NaN", want: want{state: "22000"},
			run: sqlExec(`SELECT * FROM zb.recall($1, 'colour', $2::vector)`, tenant, vecText("NaN")),
		},
		{
			surface: "sql", input: "zb.recall unknown tenant", want: want{}, note: "no rows",
			run: sqlValue(`SELECT count(*)::text FROM zb.recall('nobody-here', 'colour')`, "0"),
		},
		{
			surface: "sql", input: "zb.recall SQL metacharacters in the query", want: want{}, note: "an ordinary query",
			run: sqlExec(`SELECT * FROM zb.recall($1, $2)`, tenant, "'; DROP TABLE zb.memory; --"),
		},
		{
			surface: "sql", input: "zb.forget of an unknown id and of another tenant's memory", want: want{}, note: "false; nothing changes",
			run: sqlValue(`SELECT zb.forget($1, 1 << 40)::text || ',' || zb.forget('new-tenant', (SELECT min(id) FROM zb.memory WHERE tenant_id = $1))::text`, "false,false", tenant),
		},
		{surface: "sql", input: "zb.forget of id −1", want: want{state: "22023"}, run: sqlExec(`SELECT zb.forget($1, -1)`, tenant)},
		{surface: "sql", input: "zb.forget(NULL, NULL)", want: want{state: "22023"}, run: sqlExec(`SELECT zb.forget(NULL, NULL)`)},
		{
			surface: "sql", input: "zb.retrievability with NaN stability", want: want{}, note: "1 (not decaying)",
			run: sqlValue(`SELECT zb.retrievability('NaN', 1, now(), now() + interval '1 day')::text`, "1"),
		},
		{
			surface: "sql", input: "zb.retrievability with last access `'infinity'`", want: want{}, note: "1 (now ≤ last access)",
			run: sqlValue(`SELECT zb.retrievability(1, 1, 'infinity', now())::text`, "1"),
		},
		{
			surface: "sql", input: "zb.retrievability with last access `'-infinity'`", want: want{},
			note: "0 (infinitely old; 0009 raised 22008, fixed in 0012)",
			run:  sqlValue(`SELECT zb.retrievability(1, 1, '-infinity', now())::text`, "0"),
		},
		{
			surface: "sql", input: "zb.priority out of range or NaN", want: want{}, note: "NULL",
			run: sqlValue(`SELECT coalesce(zb.priority(2, 0, 0, 0), zb.priority('NaN', 0, 0, 0))::text`, "NULL"),
		},
		{
			surface: "sql", input: "zb.beta_quantile with a ≤ 0 or p outside [0, 1]", want: want{}, note: "NULL",
			run: sqlValue(`SELECT coalesce(zb.beta_quantile(0.5, -1, 2), zb.beta_quantile(1.5, 2, 2))::text`, "NULL"),
		},
		{
			surface: "sql", input: "zb.beta_interval95 with NaN or infinite parameters", want: want{}, note: "[0, 1]",
			run: sqlValue(`SELECT (SELECT lower || ',' || upper FROM zb.beta_interval95('NaN', 1)) || ';' ||
				(SELECT lower || ',' || upper FROM zb.beta_interval95('Infinity', 1))`, "0,1;0,1"),
		},
		{
			surface: "sql", input: "zb.stability_lock with negative accesses", want: want{}, note: "a row of NULLs",
			run: sqlValue(`SELECT (zb.stability_lock(-1, 0.5, 10, false)).lock_level::text`, "NULL"),
		},
		{
			surface: "sql", input: "zb.edge_weight_at with a negative or infinite weight", want: want{}, note: "0",
			run: sqlValue(`SELECT zb.edge_weight_at(-1, 1, now(), now())::text || ',' || zb.edge_weight_at('Infinity', 1, now(), now())::text`, "0,0"),
		},

		// zbctl.
		{surface: "cli", input: "`zbctl store \"\"`", want: want{msg: "empty content"}, run: cli("", "store", "")},
		{surface: "cli", input: "`zbctl store --layer limbic x`", want: want{msg: "unknown layer"}, run: cli("", "store", "--layer", "limbic", "x")},
		{surface: "cli", input: "`zbctl store --tenant 'a b' x`", want: want{msg: "invalid tenant id"}, run: cli("", "store", "--tenant", "a b", "x")},
		{
			surface: "cli", input: "`zbctl store --occurred-at yesterday x`", want: want{msg: "is not RFC 3339"},
			run: cli("", "store", "--occurred-at", "yesterday", "x"),
		},
		{
			surface: "cli", input: "`zbctl store --occurred-at 0000-01-01T00:00:00Z x`", want: want{msg: "OccurredAt out of range"},
			run: cli("", "store", "--occurred-at", "0000-01-01T00:00:00Z", "x"),
		},
		{surface: "cli", input: "`zbctl store --session not-a-uuid x`", want: want{msg: "is not a UUID"}, run: cli("", "store", "--session", "not-a-uuid", "x")},
		{surface: "cli", input: "`zbctl store -` with invalid UTF-8 on stdin", want: want{msg: "not valid UTF-8"}, run: cli("caf\xe9\n", "store", "-")},
		{
			surface: "cli", input: "`zbctl store -` with emoji and RTL text on stdin", want: want{rows: 1}, run: cli("🙂 שלום cli\n", "store", "-"),
			check: stored("🙂 שלום cli"),
		},
		{surface: "cli", input: "`zbctl store a b` (two arguments)", want: want{msg: "accepts 1 arg(s), received 2"}, run: cli("", "store", "a", "b")},
		{surface: "cli", input: "`zbctl --json store \"\"`", want: want{msg: `{"error":`}, note: "the error as JSON on stdout", run: cli("", "--json", "store", "")},
		{surface: "cli", input: "`zbctl recall -k 0 x`", want: want{msg: "must be in 1..1000"}, run: cli("", "recall", "-k", "0", "x")},
		{surface: "cli", input: "`zbctl recall -k -5 x`", want: want{msg: "must be in 1..1000"}, run: cli("", "recall", "-k=-5", "x")},
		{surface: "cli", input: "`zbctl recall -k many x`", want: want{msg: "invalid argument"}, run: cli("", "recall", "-k", "many", "x")},
		{surface: "cli", input: "`zbctl recall --layers limbic x`", want: want{msg: "unknown layer"}, run: cli("", "recall", "--layers", "limbic", "x")},
		{surface: "cli", input: "`zbctl recall \"\"`", want: want{msg: "empty content"}, run: cli("", "recall", "")},

		// MCP.
		{surface: "mcp", input: "remember with empty content", want: want{msg: "empty content"}, run: mcpCall("remember", map[string]any{"content": ""})},
		{surface: "mcp", input: "remember with layer `limbic`", want: want{msg: "unknown layer"}, run: mcpCall("remember", map[string]any{"content": "x", "layer": "limbic"})},
		{
			surface: "mcp", input: "remember with `\\u0000` in the JSON string", want: want{msg: "not valid UTF-8 without NUL"},
			run: mcpCall("remember", map[string]any{"content": "a\x00b"}),
		},
		{
			surface: "mcp", input: "remember with invalid UTF-8 bytes", want: want{rows: 1},
			note: "JSON replaces them with U+FFFD before the server sees them", run: mcpCall("remember", map[string]any{"content": "caf\xe9 mcp"}),
			check: stored("caf\uFFFD mcp"),
		},
		{
			surface: "mcp", input: "remember with content of the wrong JSON type (number)", want: want{msg: "content"},
			run: mcpCall("remember", map[string]any{"content": 42}),
		},
		{
			surface: "mcp", input: "recall with k = −1 and k = 101", want: want{msg: "k must be in 1..100"},
			run: func(t *testing.T, h *bharness) error {
				if err := mcpCall("recall", map[string]any{"query": "x", "k": -1})(t, h); err == nil || !strings.Contains(err.Error(), "k must be in 1..100") {
					return fmt.Errorf("k -1: %w", err)
				}
				return mcpCall("recall", map[string]any{"query": "x", "k": 101})(t, h)
			},
		},
		{surface: "mcp", input: "recall with k = \"five\"", want: want{msg: "k"}, run: mcpCall("recall", map[string]any{"query": "x", "k": "five"})},
		{surface: "mcp", input: "recall with an empty query", want: want{msg: "empty content"}, run: mcpCall("recall", map[string]any{"query": ""})},
		{surface: "mcp", input: "recall with emoji", want: want{}, run: mcpCall("recall", map[string]any{"query": "👩‍👩‍👧 photos"})},
		{surface: "mcp", input: "forget id −1", want: want{msg: "memory id must be positive"}, run: mcpCall("forget", map[string]any{"id": -1})},
		{surface: "mcp", input: "feedback on an unknown id", want: want{msg: "not found"}, run: mcpCall("feedback", map[string]any{"id": 1 << 40, "used": true})},
		{surface: "mcp", input: "core_set with an empty label", want: want{msg: "label is required"}, run: mcpCall("core_set", map[string]any{"label": " ", "content": "x"})},
		{surface: "mcp", input: "context with a negative budget", want: want{msg: "budget"}, run: mcpCall("context", map[string]any{"query": "x", "budget": -1})},
		{surface: "mcp", input: "an unknown tool", want: want{msg: "unknown tool"}, run: mcpCall("teleport", map[string]any{})},
		{
			surface: "mcp", input: "a line of malformed JSON-RPC (stdio)", want: want{msg: "invalid character"},
			note: "the SDK ends the session (zbctl mcp exits with the error); nothing is written", run: mcpMalformed,
		},

		// Sessions on the Go API.
		{
			surface: "store", input: "working memory: 9 items into one session (7 slots)", want: want{rows: 9},
			note: "2 evicted to short-term, never the newcomer", run: func(t *testing.T, h *bharness) error {
				for i := range 9 {
					res, err := h.co.Store(context.Background(), coordinator.StoreInput{
						TenantID: tenant, Content: fmt.Sprintf("focus item %d", i),
						Layer: coordinator.LayerWorking, SessionID: &sess,
					})
					if err != nil {
						return err
					}
					if res.Evicted == res.ID {
						return errors.New("the newcomer was evicted")
					}
				}
				var slots int
				if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM zb.working_slot WHERE session_id = $1`, sess).Scan(&slots); err != nil {
					return err
				}
				if slots != 7 {
					return fmt.Errorf("%d slots", slots)
				}
				return nil
			},
		},
	}
}

// mcpMalformed initializes an MCP session over a raw stream, writes a line of malformed JSON
// and returns the error the server ends its session with (the SDK reads a JSON stream and stops
// at a syntax error).
func mcpMalformed(t *testing.T, h *bharness) error {
	srv, err := mcpserver.New(&mcpserver.Config{Coordinator: h.co, Tenant: tenant})
	if err != nil {
		return err
	}
	inR, inW := ioPipe()
	outR, outW := ioPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	lines := readLines(outR)
	send := func(s string) { _, _ = inW.Write([]byte(s + "\n")) }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	select {
	case l := <-lines:
		if !strings.Contains(l, `"zenbrain"`) {
			return fmt.Errorf("initialize answered %s", l)
		}
	case <-time.After(10 * time.Second):
		return errors.New("no answer to initialize within 10s")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call",,"params":{"name":"remember","arguments":{"content":"half"}}}`)
	select {
	case err := <-done:
		_ = inW.Close()
		if err == nil {
			return errors.New("the session ended without an error")
		}
		return err
	case <-time.After(10 * time.Second):
		_ = inW.Close()
		return errors.New("the session survived a malformed line for 10s")
	}
}

func newBHarness(t *testing.T) *bharness {
	t.Helper()
	u, pool := db(t)
	h := &bharness{
		url: u, pool: pool, co: newCoordinator(t, pool, nil),
		big: newCoordinator(t, pool, &coordinator.Config{MaxContentBytes: 1 << 20}),
	}
	ctx := context.Background()
	for i, c := range []string{
		"Alice's favourite colour is green", "Bob's favourite colour is blue",
		"How to deploy: build the image, then push it",
	} {
		_, err := h.co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: c, ExternalID: fmt.Sprintf("dup-%d", i+1)})
		require.NoError(t, err)
	}
	for _, in := range []coordinator.StoreInput{
		{TenantID: "exp", Content: "Yesterday Ivan repaired the harbor crane", OccurredAt: &exportAt},
		{TenantID: "exp", Layer: coordinator.LayerCore, CoreLabel: "role", Content: "I am the harbor master"},
	} {
		_, err := h.co.Store(ctx, in)
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	_, err := h.co.Export(ctx, "exp", &buf, nil)
	require.NoError(t, err)
	h.export = buf.String()
	srv, err := mcpserver.New(&mcpserver.Config{Coordinator: h.co, Tenant: tenant})
	require.NoError(t, err)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "matrix", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	h.mcp = cs
	return h
}

// TestBadInputMatrix runs every row of the bad-input matrix and checks that the table in
// docs/reliability.md is the one these cases generate. Each row must give its documented typed
// error (or result), and a failed row must leave every table's row count as it was.
func TestBadInputMatrix(t *testing.T) {
	t.Parallel()
	cases := matrix()
	require.GreaterOrEqual(t, len(cases), 60)
	h := newBHarness(t)
	for i, c := range cases {
		t.Run(fmt.Sprintf("%03d_%s", i+1, c.surface), func(t *testing.T) {
			before := counts(t, h.pool)
			err := c.run(t, h)
			after := counts(t, h.pool)
			w := c.want
			switch {
			case w.err != nil:
				require.Error(t, err, c.input)
				require.ErrorIs(t, err, w.err, c.input)
				if !errors.Is(w.err, coordinator.ErrNotFound) && !errors.Is(w.err, coordinator.ErrConflict) {
					require.ErrorIs(t, err, coordinator.ErrInvalidInput, "input errors wrap ErrInvalidInput")
				}
				requireNoRawPgError(t, err, c.input)
			case w.state != "":
				var pgErr *pgconn.PgError
				require.ErrorAs(t, err, &pgErr, c.input)
				require.Equal(t, w.state, pgErr.Code, "%s: %v", c.input, err)
			case w.msg != "":
				require.Error(t, err, c.input)
				require.Contains(t, err.Error(), w.msg, c.input)
			default:
				require.NoError(t, err, c.input)
			}
			if err != nil {
				require.Equal(t, before, after, "%s: nothing half-written", c.input)
			} else {
				require.Equal(t, int64(w.rows), after["zb.memory"]-before["zb.memory"], "%s: memories written", c.input)
			}
			if c.check != nil {
				c.check(t, h)
			}
		})
	}
	checkDoc(t, renderMatrix(cases))
}

// requireNoRawPgError fails when err carries a PostgreSQL error that the coordinator did not map
// to one of its sentinels (a raw error leaking through the API). Mapped errors keep the
// *pgconn.PgError in their chain, so only the sentinel is checked here.
func requireNoRawPgError(t *testing.T, err error, what string) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return
		}
	}
	t.Fatalf("%s: an error without a coordinator sentinel: %v", what, err)
}

// renderMatrix renders the Markdown table of the cases.
func renderMatrix(cases []bcase) string {
	var b strings.Builder
	b.WriteString("| # | surface | input | outcome | notes |\n|---:|---|---|---|---|\n")
	for i, c := range cases {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", i+1, c.surface, mdCell(c.input), c.want.outcome(), mdCell(c.note))
	}
	return b.String()
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// checkDoc compares the generated section of docs/reliability.md with table, or rewrites it
// with -update.
func checkDoc(t *testing.T, table string) {
	t.Helper()
	path := filepath.Clean(docPath)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(b)
	i, j := strings.Index(doc, matrixBegin), strings.Index(doc, matrixEnd)
	require.True(t, i >= 0 && j > i, "%s lacks the bad-input markers", path)
	gen := doc[:i] + matrixBegin + "\n" + table + doc[j:]
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(gen), 0o644))
		return
	}
	require.Equal(t, gen, doc, "docs/reliability.md is stale: go test ./integration/reliability -run TestBadInputMatrix -update")
}
