package dbconn_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/dbconn"
	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }

// A *pgvector.Vector parameter (sqlc's nullable vector) is sent as the vector's binary encoding,
// byte for byte what the value itself encodes to, and a nil one as NULL; both round-trip.
func TestPointerVectorParameters(t *testing.T) {
	ctx := context.Background()
	pool, err := dbconn.NewPool(ctx, &dbconn.Config{URL: zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 3})})
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	m := conn.Conn().TypeMap()
	dt, ok := m.TypeForName("vector")
	require.True(t, ok, "the vector type is registered")

	v := pgvector.NewVector([]float32{1, -2.5, 3})
	byValue, err := m.Encode(dt.OID, pgtype.BinaryFormatCode, v, nil)
	require.NoError(t, err)
	byPointer, err := m.Encode(dt.OID, pgtype.BinaryFormatCode, &v, nil)
	require.NoError(t, err)
	require.True(t, bytes.Equal(byValue, byPointer), "pointer %x, value %x", byPointer, byValue)
	null, err := m.Encode(dt.OID, pgtype.BinaryFormatCode, (*pgvector.Vector)(nil), nil)
	require.NoError(t, err)
	require.Nil(t, null, "a nil pointer is NULL")

	var text *string
	require.NoError(t, conn.QueryRow(ctx, "SELECT $1::vector::text", &v).Scan(&text))
	require.NotNil(t, text)
	require.Equal(t, "[1,-2.5,3]", *text)
	require.NoError(t, conn.QueryRow(ctx, "SELECT $1::vector::text", (*pgvector.Vector)(nil)).Scan(&text))
	require.Nil(t, text)
}

// BenchmarkEncodeVector encodes a 256-dimensional *pgvector.Vector parameter with zenbrain's
// connection setup (binary, through the dereferencing plan) and with pgvector-go's
// registration alone (pgx's driver.Valuer path: text, a failed plan, a fallback); the ratio
// (logged) is the second over the first, measured in the same run.
func BenchmarkEncodeVector(b *testing.B) {
	ctx := context.Background()
	u := zbtest.DB(b, &zbtest.Opts{EmbeddingDim: 3})
	zb, err := pgx.Connect(ctx, u)
	require.NoError(b, err)
	defer zb.Close(ctx)
	require.NoError(b, dbconn.RegisterTypes(ctx, zb))
	plain, err := pgx.Connect(ctx, u)
	require.NoError(b, err)
	defer plain.Close(ctx)
	require.NoError(b, pgxvec.RegisterTypes(ctx, plain))
	xs := make([]float32, 256)
	for i := range xs {
		xs[i] = float32(i%17)/17 - 0.5
	}
	v := pgvector.NewVector(xs)
	encode := func(b *testing.B, conn *pgx.Conn) float64 {
		m := conn.TypeMap()
		dt, _ := m.TypeForName("vector")
		var buf []byte
		b.ResetTimer()
		for b.Loop() {
			var err error
			if buf, err = m.Encode(dt.OID, pgtype.BinaryFormatCode, &v, buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
		return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	}
	var nsZB, nsPlain float64
	b.Run("zenbrain", func(b *testing.B) { nsZB = encode(b, zb) })
	b.Run("valuer", func(b *testing.B) { nsPlain = encode(b, plain) })
	if nsZB > 0 {
		b.Logf("%.0f ns (zenbrain) vs %.0f ns (driver.Valuer): %.1f× faster", nsZB, nsPlain, nsPlain/nsZB)
	}
}
