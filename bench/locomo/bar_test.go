package locomo

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A plain bar writes one line per 10 % of the work, with the current description, and never a
// carriage return (it is meant for logs).
func TestPlainBar(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, 200, true)
	b.describe("per-conversation   zenbrain  ")
	for range 200 {
		b.add(1)
	}
	b.finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 10)
	require.True(t, strings.HasPrefix(lines[0], "per-conversation zenbrain: 10% (20/200) in "), lines[0])
	require.True(t, strings.HasPrefix(lines[9], "per-conversation zenbrain: 100% (200/200) in "), lines[9])
	require.NotContains(t, buf.String(), "\r")
	var nilBar *bar
	nilBar.add(1)
	nilBar.describe("x")
	nilBar.finish()
	require.Nil(t, newBar(nil, 10, true))
}
