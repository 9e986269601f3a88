package layer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/zenbrain/zb/algorithms/layer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestValid(t *testing.T) {
	t.Parallel()
	require.Len(t, layer.All(), 7)
	for _, l := range layer.All() {
		require.True(t, l.Valid(), l)
		require.Equal(t, l != layer.Core, l.Decays(), l)
	}
	for _, bad := range []layer.Layer{"", "Working", "limbic", "short-term"} {
		require.False(t, bad.Valid(), bad)
	}
}

func ExampleLayer_Valid() {
	fmt.Println(layer.Semantic.Valid(), layer.Layer("limbic").Valid(), layer.Core.Decays())
	// Output: true false false
}
