// Package dbconn opens the pgx connection pools zenbrain uses. One pool serves both the sqlc
// queries of package db and River (riverpgxv5.New(pool)).
//
// Every connection registers the pgvector codecs (when the vector extension exists in the
// database) and carries an application_name, so pg_stat_activity tells zbctl, zbworker and
// application connections apart.
package dbconn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// ApplicationNameDefault is the application_name of connections when Config.ApplicationName
// is empty.
const ApplicationNameDefault = "zenbrain"

// ConnectTimeoutDefault bounds the time to establish one connection.
const ConnectTimeoutDefault = 10 * time.Second

// Config configures a pool.
type Config struct {
	// URL is a PostgreSQL connection URL or keyword/value string. Required.
	URL string

	// ApplicationName is set on every connection. Defaults to ApplicationNameDefault.
	ApplicationName string

	// MaxConns is the pool size. Defaults to pgxpool's default (max(4, NumCPU)).
	MaxConns int32

	// ConnectTimeout bounds the time to establish one connection. Defaults to
	// ConnectTimeoutDefault.
	ConnectTimeout time.Duration
}

// ErrUnreachable is returned (wrapped) when no connection to the server can be made.
var ErrUnreachable = errors.New("database unreachable")

// NewPool opens a pool and checks that the server answers.
func NewPool(ctx context.Context, cfg *Config) (*pgxpool.Pool, error) {
	if cfg.URL == "" {
		return nil, errors.New("no database URL: set ZB_DATABASE_URL or run 'zbctl dev up'")
	}
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("error parsing database URL: %w", err)
	}
	pcfg.ConnConfig.RuntimeParams["application_name"] = cmp.Or(cfg.ApplicationName, ApplicationNameDefault)
	pcfg.ConnConfig.ConnectTimeout = cmp.Or(cfg.ConnectTimeout, ConnectTimeoutDefault)
	if cfg.MaxConns > 0 {
		pcfg.MaxConns = cfg.MaxConns
	}
	pcfg.AfterConnect = RegisterTypes
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("error creating pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, describeConnectError(pcfg.ConnConfig, err)
	}
	return pool, nil
}

// RegisterTypes registers the pgvector codecs on conn when the vector type exists.
func RegisterTypes(ctx context.Context, conn *pgx.Conn) error {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regtype('vector') IS NOT NULL").Scan(&exists); err != nil {
		return fmt.Errorf("error looking up the vector type: %w", err)
	}
	if !exists {
		return nil
	}
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		return fmt.Errorf("error registering pgvector types: %w", err)
	}
	m := conn.TypeMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryDerefVector}, m.TryWrapEncodePlanFuncs...)
	return nil
}

// tryDerefVector encodes a *pgvector.Vector parameter (sqlc's type for a nullable vector) as
// the vector it points to, in pgvector's binary format, or NULL. pgx does not dereference a
// pointer whose type implements driver.Valuer, so without it every such parameter went
// through Vector.Value: the vector printed as text, a failed binary plan (whose error message
// formatted the whole text again) and a text-format fallback — ≈ 70 µs of client CPU per
// 256-dimensional vector, more than the statement it was sent with (see BenchmarkEncodeVector).
func tryDerefVector(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	if _, ok := value.(*pgvector.Vector); ok {
		return &derefVectorPlan{}, pgvector.Vector{}, true
	}
	return nil, nil, false
}

type derefVectorPlan struct{ next pgtype.EncodePlan }

func (p *derefVectorPlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *derefVectorPlan) Encode(value any, buf []byte) ([]byte, error) {
	v := value.(*pgvector.Vector)
	if v == nil {
		return nil, nil
	}
	return p.next.Encode(*v, buf)
}

func describeConnectError(cc *pgx.ConnConfig, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Errorf("error connecting to %s:%d as %s: %w", cc.Host, cc.Port, cc.User, err)
	}
	var netErr net.Error
	var opErr *net.OpError
	if errors.As(err, &netErr) || errors.As(err, &opErr) || pgconn.Timeout(err) || isConnectErr(err) {
		return fmt.Errorf("%w: cannot reach PostgreSQL at %s:%d (is it running? check ZB_DATABASE_URL, or run 'zbctl dev up'): %w",
			ErrUnreachable, cc.Host, cc.Port, err)
	}
	return fmt.Errorf("error connecting to %s:%d: %w", cc.Host, cc.Port, err)
}

func isConnectErr(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}
