package ablation

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/migrate"
)

// DimDefault is the embedding dimension of the benchmark databases: the offline hash embedder
// at 256 dimensions keeps an embedding (1 KiB) inside the row, where 768 dimensions would be
// TOASTed and read back on every candidate.
const DimDefault = 256

// Database is a throwaway database for the ablation and the experiments.
type Database struct {
	// Env is the pool and the embedder runs use.
	Env *Env
	// Name is the database's name.
	Name string
	drop func()
}

// Close closes the pool and drops the database.
func (d *Database) Close() {
	if d != nil && d.drop != nil {
		d.drop()
	}
}

var dbSeq atomic.Int64

// OpenDatabase creates a database on the server of adminURL (a role that may CREATE
// DATABASE), migrates it with embedding dimension dim (0: DimDefault), switches its
// synchronous_commit off (the data is thrown away; commits then do not wait for the WAL flush,
// which changes no result), and returns a pool of maxConns connections and the hash embedder
// of that dimension. It also keeps a copy of the migrated database as a template: [Run] with
// the returned Env gives each run a database of its own made from it (CREATE DATABASE …
// TEMPLATE, about a tenth of a second) and drops it after the run, so that a run's figures
// depend only on its world and arm — not on the runs before it or beside it (a shared HNSW
// graph, statistics, the physical order of rows). Close drops both.
func OpenDatabase(ctx context.Context, adminURL string, dim int, maxConns int32) (*Database, error) {
	if dim == 0 {
		dim = DimDefault
	}
	if dim < 1 || dim > migrate.EmbeddingDimMax {
		return nil, fmt.Errorf("%w: embedding dimension %d outside 1..%d", ErrBadSpec, dim, migrate.EmbeddingDimMax)
	}
	name := fmt.Sprintf("zbablation_%d_%d", os.Getpid(), dbSeq.Add(1))
	if err := adminExec(ctx, adminURL, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return nil, fmt.Errorf("error creating database %s: %w", name, err)
	}
	drop := func() { dropDatabase(adminURL, name) }
	if err := adminExec(ctx, adminURL, "ALTER DATABASE "+name+" SET synchronous_commit TO off"); err != nil {
		drop()
		return nil, fmt.Errorf("error configuring database %s: %w", name, err)
	}
	u, err := withDatabase(adminURL, name)
	if err != nil {
		drop()
		return nil, err
	}
	// Migrate through a pool of its own: connections register the pgvector codecs when they
	// open, so the runs' pool must open after the extension exists.
	mpool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbablation-migrate", MaxConns: 2})
	if err != nil {
		drop()
		return nil, err
	}
	m, err := migrate.New(mpool)
	if err == nil {
		_, err = m.Up(ctx, &migrate.Opts{EmbeddingDim: dim})
	}
	mpool.Close()
	if err != nil {
		drop()
		return nil, fmt.Errorf("error migrating %s: %w", name, err)
	}
	// The template of the runs' own databases: a copy of the migrated database made now, while
	// no session is connected to it (CREATE DATABASE … TEMPLATE needs that).
	tmpl := name + "_tpl"
	if err := adminExec(ctx, adminURL, "CREATE DATABASE "+tmpl+" TEMPLATE "+name); err != nil {
		drop()
		return nil, fmt.Errorf("error creating database %s: %w", tmpl, err)
	}
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: u, ApplicationName: "zbablation", MaxConns: maxConns})
	if err != nil {
		drop()
		return nil, err
	}
	emb, err := embed.New(&embed.Config{Provider: embed.ProviderHash, Dim: dim})
	if err != nil {
		pool.Close()
		drop()
		return nil, fmt.Errorf("error creating the hash embedder: %w", err)
	}
	dropAll := func() {
		pool.Close()
		drop()
		dropDatabase(adminURL, tmpl)
	}
	env := &Env{Pool: pool, Embedder: emb}
	env.fresh = func(ctx context.Context) (*Env, func(), error) {
		run := fmt.Sprintf("%s_r%d", name, dbSeq.Add(1))
		dropRun := func() { dropDatabase(adminURL, run) }
		// A database's settings are not copied from its template.
		if err := adminExec(ctx, adminURL, "CREATE DATABASE "+run+" TEMPLATE "+tmpl,
			"ALTER DATABASE "+run+" SET synchronous_commit TO off"); err != nil {
			dropRun()
			return nil, nil, fmt.Errorf("error creating database %s: %w", run, err)
		}
		ru, err := withDatabase(adminURL, run)
		if err != nil {
			dropRun()
			return nil, nil, err
		}
		rpool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: ru, ApplicationName: "zbablation", MaxConns: 4})
		if err != nil {
			dropRun()
			return nil, nil, err
		}
		return &Env{Pool: rpool, Embedder: emb}, func() { rpool.Close(); dropRun() }, nil
	}
	return &Database{Env: env, Name: name, drop: dropAll}, nil
}

// NewEnv returns an Env over an existing migrated pool with the hash embedder of the
// database's embedding dimension.
func NewEnv(ctx context.Context, pool *pgxpool.Pool) (*Env, error) {
	var v string
	if err := pool.QueryRow(ctx, "SELECT value FROM zb.config WHERE key = 'embedding_dim'").Scan(&v); err != nil {
		return nil, fmt.Errorf("error reading the embedding dimension: %w", err)
	}
	var dim int
	if _, err := fmt.Sscan(v, &dim); err != nil {
		return nil, fmt.Errorf("invalid embedding_dim %q: %w", v, err)
	}
	emb, err := embed.New(&embed.Config{Provider: embed.ProviderHash, Dim: dim})
	if err != nil {
		return nil, fmt.Errorf("error creating the hash embedder: %w", err)
	}
	return &Env{Pool: pool, Embedder: emb}, nil
}

// dropDatabase drops database name on the server of admin (best effort, within a minute, even
// when the caller's context is done).
func dropDatabase(admin, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = adminExec(ctx, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

// adminExec runs the statements one after the other on one connection of admin.
func adminExec(ctx context.Context, admin string, sqls ...string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, sql := range sqls {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	return nil
}

func withDatabase(raw, db string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("ablation: the admin URL must be a postgres:// URL")
	}
	u.Path = "/" + db
	return u.String(), nil
}
