package schema_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/sql/schema"
)

// TestReleasedMigrationsUnchanged fails when a released migration (listed in released.sum)
// was edited or removed: released migrations are immutable; add a new one instead.
// Release new migrations with `make release-migrations`.
func TestReleasedMigrationsUnchanged(t *testing.T) {
	t.Parallel()
	f, err := schema.FS.Open("released.sum")
	require.NoError(t, err, "sql/schema/released.sum is missing")
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		require.Len(t, fields, 2, "malformed line in released.sum: %q", sc.Text())
		b, err := schema.FS.ReadFile(fields[1])
		require.NoError(t, err, "released migration %s was removed", fields[1])
		sum := sha256.Sum256(b)
		require.Equal(t, fields[0], hex.EncodeToString(sum[:]),
			"released migration %s was edited; revert it and add a new migration instead", fields[1])
		n++
	}
	require.NoError(t, sc.Err())
	require.Positive(t, n)
}
