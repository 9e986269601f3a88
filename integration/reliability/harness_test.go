package reliability

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
)

// dim is the embedding dimension of every database in this package (small: fast templates,
// small fixtures).
const dim = 32

// newPool opens a pool on url with the registered pgvector types, an optional query tracer
// and extra run-time parameters (e.g. statement_timeout).
func newPool(t testing.TB, url string, tracer pgx.QueryTracer, params map[string]string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	cfg.AfterConnect = dbconn.RegisterTypes
	cfg.MaxConns = 8
	cfg.ConnConfig.RuntimeParams["application_name"] = "zb-reliability"
	for k, v := range params {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	if tracer != nil {
		cfg.ConnConfig.Tracer = tracer
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// newCoordinator returns a coordinator on pool with the offline hash embedder of dimension dim
// and cfg's other fields.
func newCoordinator(t testing.TB, pool *pgxpool.Pool, cfg *coordinator.Config) *coordinator.Coordinator {
	t.Helper()
	emb, err := embed.New(&embed.Config{Dim: dim})
	require.NoError(t, err)
	c := coordinator.Config{}
	if cfg != nil {
		c = *cfg
	}
	c.Pool = pool
	if c.Embedder == nil {
		c.Embedder = emb
	}
	co, err := coordinator.New(&c)
	require.NoError(t, err)
	return co
}

// countTables are the tables whose row counts show a half-written operation.
var countTables = []string{
	"zb.tenant", "zb.session", "zb.memory", "zb.working_slot", "zb.procedure", "zb.triple_copy",
	"zb.audit_event", "zb.recall_event", "zb.lability_window", "zb.lexical_stat_delta", "zb.edge",
	"zb.entity", "zb.mention", "river.river_job",
}

// counts returns the row count of every table in countTables.
func counts(t testing.TB, pool *pgxpool.Pool) map[string]int64 {
	t.Helper()
	parts := make([]string, len(countTables))
	for i, tb := range countTables {
		parts[i] = "SELECT '" + tb + "', count(*) FROM " + tb
	}
	rows, err := pool.Query(context.Background(), strings.Join(parts, " UNION ALL "))
	require.NoError(t, err)
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		require.NoError(t, rows.Scan(&k, &n))
		out[k] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// gate is a pgx query tracer that, once armed, stops the first query whose SQL contains
// marker: it hands the connection to the test through reached and waits for release. Tests
// use it to act (terminate the backend, commit a concurrent write) at an exact point inside
// an operation's transaction.
type gate struct {
	marker  string
	armed   atomic.Bool
	reached chan *pgx.Conn
	release chan struct{}
}

func newGate(marker string) *gate {
	return &gate{marker: marker, reached: make(chan *pgx.Conn, 1), release: make(chan struct{})}
}

// TraceQueryStart implements pgx.QueryTracer.
func (g *gate) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	g.stopAt(conn, data.SQL)
	return ctx
}

// stopAt holds conn until release when the armed gate's marker is in sql, and reports whether
// it did.
func (g *gate) stopAt(conn *pgx.Conn, sql string) bool {
	if !strings.Contains(sql, g.marker) || !g.armed.CompareAndSwap(true, false) {
		return false
	}
	g.reached <- conn
	<-g.release
	return true
}

// TraceQueryEnd implements pgx.QueryTracer.
func (g *gate) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer: a pipelined batch holding a query with the
// marker stops before it is sent, as the query alone would.
func (g *gate) TraceBatchStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	for _, q := range data.Batch.QueuedQueries {
		if g.stopAt(conn, q.SQL) {
			break
		}
	}
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (g *gate) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (g *gate) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// waitGate waits for the armed gate to stop a query and returns the backend pid of its
// connection.
func waitGate(t testing.TB, g *gate, timeout time.Duration) uint32 {
	t.Helper()
	select {
	case conn := <-g.reached:
		return conn.PgConn().PID()
	case <-time.After(timeout):
		t.Fatalf("no query containing %q within %v", g.marker, timeout)
		return 0
	}
}

// waitFor polls cond every 20 ms until it holds or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// db returns a fresh migrated database's URL and a plain pool on it.
func db(t testing.TB) (string, *pgxpool.Pool) {
	t.Helper()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: dim})
	return u, newPool(t, u, nil, nil)
}

// ioPipe returns a connected reader and writer (io.Pipe).
func ioPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// readLines sends every line read from r to the returned channel, closed at EOF.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// Words of the generated test texts.
var (
	rlNames  = []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"}
	rlPlaces = []string{"Paris", "Lisbon", "Berlin", "Oslo", "Madrid", "Vienna", "Prague"}
	rlWords  = []string{"apple", "river", "stone", "cloud", "maple", "copper", "violin", "garden", "ladder", "harbor"}
)

func wlName(i int) string  { return rlNames[i%len(rlNames)] }
func wlPlace(i int) string { return rlPlaces[i%len(rlPlaces)] }
func wlWordA(i int) string { return rlWords[i%len(rlWords)] }
