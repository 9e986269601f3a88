package reliability

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/pgcluster"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/jobs"
	"github.com/zenbrain/zb/migrate"
)

var writeFixture = flag.Bool("write-fixture", false, "rewrite "+fixturePath+" from a database at migration "+fmt.Sprint(fixtureVersion))

// The committed fixture: a plain pg_dump of a database at the released schema (migrations
// 0001–0009 and River's migrations of that time) holding representative data.
const (
	fixturePath    = "../testdata/release_0009.sql"
	fixtureVersion = 9
)

// fixedClock is a settable clock (the coordinator reads it once per operation).
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fixedClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// populateStart is the virtual time at which populate begins.
var populateStart = time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC)

// recallProbes are queries whose best answer populate makes unambiguous.
var recallProbes = []struct{ tenant, query, want string }{
	{"acme", "What is Alice's favourite colour?", "Alice's favourite colour is green"},
	{"acme", "Where does Alice live?", "Alice lives in Berlin"},
	{"acme", "how do I deploy the billing service?", "How to deploy the billing service: build the image, run the migrations, then roll out"},
	{"acme", "What did we do at the lake?", "Yesterday we swam in the lake with Bob and Carol"},
	{"globex", "which supplier ships copper wire from Lisbon?", "Supplier 7 ships copper wire from Lisbon"},
}

// populate writes representative data through the coordinator: facts (one superseded),
// episodes with dates, a skill, core memories, a working-memory session and a short-term
// session, emoji and right-to-left text, a batch for a second tenant, derivation (entities,
// mentions, edges, triple copies, review cards), recalls (access counts, lability windows),
// feedback, a sleep and an algorithm switch. The clock advances between steps.
func populate(t *testing.T, co *coordinator.Coordinator, clk *fixedClock) {
	t.Helper()
	ctx := context.Background()
	step := func() { clk.advance(7 * time.Minute) }
	store := func(in coordinator.StoreInput) int64 {
		t.Helper()
		res, err := co.Store(ctx, in)
		require.NoError(t, err, in.Content)
		step()
		return res.ID
	}
	day := func(d int) *time.Time { x := populateStart.AddDate(0, 0, -d); return &x }
	for _, c := range []string{
		"Alice's favourite colour is green", "Alice lives in Paris", "Bob works at the observatory in Oslo",
		"Carol is allergic to peanuts", "The quarterly report is due on Friday", "Dave plays the violin in an orchestra",
	} {
		store(coordinator.StoreInput{TenantID: "acme", Content: c, ExternalID: "fact:" + c[:12]})
	}
	store(coordinator.StoreInput{TenantID: "acme", Content: "Alice lives in Berlin", ExternalID: "fact:alice-berlin"})
	store(coordinator.StoreInput{TenantID: "acme", Content: "Yesterday we swam in the lake with Bob and Carol", OccurredAt: day(3)})
	store(coordinator.StoreInput{TenantID: "acme", Content: "Last week Erin presented the new telescope design", OccurredAt: day(10)})
	store(coordinator.StoreInput{TenantID: "acme", Content: "I was thrilled when the launch finally succeeded!", OccurredAt: day(1)})
	_, err := co.RecordSkill(ctx, "acme", "How to deploy the billing service: build the image, run the migrations, then roll out",
		coordinator.Skill{Trigger: "deploy billing", Steps: []string{"build the image", "run the migrations", "roll out"}, Tools: []string{"docker", "kubectl"}})
	require.NoError(t, err)
	step()
	store(coordinator.StoreInput{TenantID: "acme", Layer: coordinator.LayerCore, CoreLabel: "name", Content: "My name is Sam"})
	store(coordinator.StoreInput{TenantID: "acme", Layer: coordinator.LayerCore, CoreLabel: "language", Content: "I prefer English"})
	store(coordinator.StoreInput{TenantID: "acme", Content: "🧠 Grace's notes 👩‍🔬 on the bee colony 🐝"})
	store(coordinator.StoreInput{TenantID: "acme", Content: "ليلى تعيش في القاهرة — Layla lives in Cairo", Context: "personal"})

	sess, err := co.StartSession(ctx, "acme", "work")
	require.NoError(t, err)
	for i := range 9 {
		store(coordinator.StoreInput{
			TenantID: "acme", Layer: coordinator.LayerWorking, SessionID: &sess, Context: "work",
			Content: fmt.Sprintf("Focus %d: review the telescope mirror alignment with Erin", i),
		})
	}
	chat, err := co.StartSession(ctx, "acme", "work")
	require.NoError(t, err)
	for i, c := range []string{
		"Frank asked about the budget for the Oslo trip", "I told Frank the budget is 4000 euros",
		"Frank said he will book the train to Oslo",
	} {
		store(coordinator.StoreInput{
			TenantID: "acme", SessionID: &chat, Context: "work", Content: c,
			Metadata: map[string]any{"speaker": []string{"Frank", "Sam", "Frank"}[i]},
		})
	}
	_, err = co.EndSession(ctx, "acme", chat)
	require.NoError(t, err)

	items := make([]coordinator.StoreInput, 20)
	for i := range items {
		items[i] = coordinator.StoreInput{
			TenantID: "globex", ExternalID: fmt.Sprintf("gx-%02d", i),
			Content: fmt.Sprintf("Supplier %d ships %s from %s", i, rlWords[i%len(rlWords)], rlPlaces[i%len(rlPlaces)]),
		}
	}
	items[7].Content = "Supplier 7 ships copper wire from Lisbon"
	_, err = co.StoreBatch(ctx, items)
	require.NoError(t, err)
	step()
	require.NoError(t, co.SetAlgorithm(ctx, "globex", "decay", false))

	for _, ten := range []string{"acme", "globex"} {
		for {
			rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: ten, Pending: true}, nil)
			require.NoError(t, err)
			if !rep.More {
				break
			}
		}
	}
	_, err = co.Consolidate(ctx, "acme", chat, nil)
	require.NoError(t, err)
	clk.advance(2 * time.Hour)
	for _, p := range recallProbes {
		rec, err := co.Recall(ctx, p.tenant, p.query, nil)
		require.NoError(t, err)
		require.NotEmpty(t, rec.Results)
		if p.tenant == "acme" && len(rec.Results) > 0 {
			_, err = co.Feedback(ctx, p.tenant, rec.Results[0].ID, true)
			require.NoError(t, err)
		}
		step()
	}
	clk.advance(20 * time.Hour)
	_, err = co.Sleep(ctx, "acme", &coordinator.SleepOpts{Trigger: "manual", Seed: 42}, nil)
	require.NoError(t, err)
	clk.advance(time.Hour)
}

// pgTool returns the path of a PostgreSQL client program (pg_dump, pg_restore, psql) from the
// server binaries' directory, else from PATH.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	if dir, err := pgcluster.FindBinDir(); err == nil {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name)
		}
	}
	p, err := exec.LookPath(name)
	require.NoError(t, err, "%s not found", name)
	return p
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(pgTool(t, name), args...).CombinedOutput()
	require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
	return string(out)
}

// TestWriteReleaseFixture writes the committed fixture, with -write-fixture only (it is a
// generator, not a test; docs/reliability.md says where to run it): a database migrated to
// migration 0009, populated, and dumped as plain SQL.
func TestWriteReleaseFixture(t *testing.T) {
	if !*writeFixture {
		t.Skip("a fixture generator: run with -write-fixture in a copy of the release (docs/reliability.md)")
	}
	u := zbtest.DB(t, &zbtest.Opts{Empty: true})
	pool := newPool(t, u, nil, nil)
	m, err := migrate.New(pool)
	require.NoError(t, err)
	_, err = m.Up(context.Background(), &migrate.Opts{EmbeddingDim: dim, Target: fixtureVersion})
	require.NoError(t, err)
	pool.Reset() // reconnect: the vector type exists now
	clk := &fixedClock{t: populateStart}
	populate(t, newCoordinator(t, pool, &coordinator.Config{Clock: clk}), clk)
	dump := runTool(t, "pg_dump", "--no-owner", "--no-privileges", "--no-comments", "--format=plain", "--dbname="+u)
	header := fmt.Sprintf("-- zenbrain test fixture: a database at migration %04d (the released schema) with\n"+
		"-- representative data, written by go test ./integration/reliability -run TestWriteReleaseFixture -write-fixture.\n"+
		"-- Embedding dimension %d. Restore into an empty database with psql -f; see integration/reliability/upgrade_test.go.\n",
		fixtureVersion, dim)
	require.NoError(t, os.WriteFile(fixturePath, []byte(header+dump), 0o644))
}

// tableColumns returns the columns of every table of schema zb, by table.
func tableColumns(t *testing.T, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT c.table_name, c.column_name FROM information_schema.columns c
		JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
		WHERE c.table_schema = 'zb' AND tb.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`)
	require.NoError(t, err)
	out := map[string][]string{}
	for rows.Next() {
		var tb, col string
		require.NoError(t, rows.Scan(&tb, &col))
		out[tb] = append(out[tb], col)
	}
	require.NoError(t, rows.Err())
	return out
}

// rowTexts returns, per table, the text of every row over the given columns, sorted.
func rowTexts(t *testing.T, pool *pgxpool.Pool, cols map[string][]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for tb, cs := range cols {
		parts := make([]string, len(cs))
		for i, c := range cs {
			parts[i] = fmt.Sprintf("coalesce(%q::text, '∅')", c)
		}
		q := fmt.Sprintf(`SELECT concat_ws('|', %s) AS r FROM zb.%q ORDER BY 1`, strings.Join(parts, ", "), tb)
		rows, err := pool.Query(context.Background(), q)
		require.NoError(t, err, tb)
		out[tb] = []string{}
		for rows.Next() {
			var r string
			require.NoError(t, rows.Scan(&r))
			out[tb] = append(out[tb], r)
		}
		require.NoError(t, rows.Err())
	}
	return out
}

// requireRowsKept checks that every row of before is in after (a migration may add rows, e.g.
// install settings, but must not change or lose one).
func requireRowsKept(t *testing.T, before, after map[string][]string) {
	t.Helper()
	for tb, rows := range before {
		have := map[string]int{}
		for _, r := range after[tb] {
			have[r]++
		}
		for _, r := range rows {
			require.Positive(t, have[r], "zb.%s: row changed or lost: %s", tb, r)
			have[r]--
		}
	}
}

// An install at the released schema (the committed fixture: migrations 0001–0009 with data)
// migrates to the current head: every row of every table that existed keeps its values, and
// recall, store, derivation and the SQL API work on the upgraded database.
func TestUpgradeFromRelease0009(t *testing.T) {
	t.Parallel()
	_, err := os.Stat(fixturePath)
	require.NoError(t, err, "the fixture is committed; regenerate it with -write-fixture")
	u := zbtest.DB(t, &zbtest.Opts{Empty: true})
	runTool(t, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", fixturePath, u)
	pool := newPool(t, u, nil, nil)
	ctx := context.Background()

	m, err := migrate.New(pool)
	require.NoError(t, err)
	st, err := m.Status(ctx)
	require.NoError(t, err)
	applied := 0
	for _, mg := range st.Migrations {
		if mg.Applied {
			applied++
			require.False(t, mg.Modified, "released migration %d unchanged", mg.Version)
		}
	}
	require.Equal(t, fixtureVersion, applied, "the fixture is at migration %d", fixtureVersion)
	cols := tableColumns(t, pool)
	before := rowTexts(t, pool, cols)
	require.NotEmpty(t, before["memory"])

	res, err := m.Up(ctx, &migrate.Opts{EmbeddingDim: dim})
	require.NoError(t, err)
	t.Logf("upgrade applied %v (River %v)", res.Applied, res.River)
	st, err = m.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate)
	pool.Reset()
	after := rowTexts(t, pool, cols)
	requireRowsKept(t, before, after)
	n := 0
	for _, rows := range before {
		n += len(rows)
	}
	t.Logf("%d rows of %d released tables intact", n, len(before))

	clk := &fixedClock{t: populateStart.Add(48 * time.Hour)}
	co := newCoordinator(t, pool, &coordinator.Config{Clock: clk})
	for _, p := range recallProbes {
		rec, err := co.Recall(ctx, p.tenant, p.query, &coordinator.RecallOpts{ReadOnly: true})
		require.NoError(t, err)
		require.NotEmpty(t, rec.Results, p.query)
		require.Equal(t, p.want, rec.Results[0].Content, p.query)
	}
	var maxID int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(id) FROM zb.memory`).Scan(&maxID))
	r, err := co.Store(ctx, coordinator.StoreInput{TenantID: "acme", Content: "Heidi joined the observatory team in Oslo"})
	require.NoError(t, err)
	require.Greater(t, r.ID, maxID, "identities continue after the restore")
	rep, err := co.Derive(ctx, jobs.DeriveArgs{TenantID: "acme", MemoryIDs: []int64{r.ID}}, nil)
	require.NoError(t, err)
	require.Equal(t, []int64{r.ID}, rep.Derived)
	var sqlTop string
	require.NoError(t, pool.QueryRow(ctx, `SELECT content FROM zb.recall('globex', 'copper wire') ORDER BY rank LIMIT 1`).Scan(&sqlTop))
	require.Equal(t, "Supplier 7 ships copper wire from Lisbon", sqlTop)
}

// recallSnapshot recalls every probe read-only and renders the results (id, layer, score to
// 1e-9, content) for comparison.
func recallSnapshot(t *testing.T, co *coordinator.Coordinator) []string {
	t.Helper()
	var out []string
	for _, p := range recallProbes {
		rec, err := co.Recall(context.Background(), p.tenant, p.query, &coordinator.RecallOpts{K: 8, ReadOnly: true})
		require.NoError(t, err)
		for i, r := range rec.Results {
			out = append(out, fmt.Sprintf("%s|%s|%d|%d|%s|%.9f|%s", p.tenant, p.query, i, r.ID, r.Layer, r.Score, r.Content))
		}
	}
	return out
}

// A pg_dump / pg_restore round trip (custom format) of a populated database gives identical
// recall results (ids, layers, scores, order), identical SQL recall and identical rows.
func TestBackupRoundTrip(t *testing.T) {
	t.Parallel()
	u, pool := db(t)
	clk := &fixedClock{t: populateStart}
	populate(t, newCoordinator(t, pool, &coordinator.Config{Clock: clk}), clk)
	ctx := context.Background()
	at := &fixedClock{t: clk.Now().Add(24 * time.Hour)}
	want := recallSnapshot(t, newCoordinator(t, pool, &coordinator.Config{Clock: at}))
	require.NotEmpty(t, want)
	cols := tableColumns(t, pool)
	wantRows := rowTexts(t, pool, cols)
	sqlRecall := func(p *pgxpool.Pool) []string {
		rows, err := p.Query(ctx, `SELECT memory_id::text || '|' || round(score::numeric, 9)::text
			FROM zb.recall('acme', 'Alice favourite colour', p_now => $1) ORDER BY rank`, at.Now())
		require.NoError(t, err)
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rows.Err())
		return out
	}
	wantSQL := sqlRecall(pool)
	require.NotEmpty(t, wantSQL)

	dump := filepath.Join(t.TempDir(), "zb.dump")
	runTool(t, "pg_dump", "--format=custom", "--file="+dump, "--dbname="+u)
	u2 := zbtest.DB(t, &zbtest.Opts{Empty: true})
	runTool(t, "pg_restore", "--no-owner", "--exit-on-error", "--dbname="+u2, dump)
	pool2 := newPool(t, u2, nil, nil)
	require.Equal(t, wantRows, rowTexts(t, pool2, cols), "identical rows")
	got := recallSnapshot(t, newCoordinator(t, pool2, &coordinator.Config{Clock: at}))
	require.Equal(t, want, got, "identical recall results")
	require.Equal(t, wantSQL, sqlRecall(pool2), "identical zb.recall results")
	tables := make([]string, 0, len(cols))
	for tb := range cols {
		tables = append(tables, tb)
	}
	sort.Strings(tables)
	t.Logf("%d recall results and %d tables identical after pg_dump/pg_restore", len(want), len(tables))
}
