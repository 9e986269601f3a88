package integration

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

// updateSQLDoc rewrites the expected outputs of docs/sql.md from the actual ones.
var updateSQLDoc = flag.Bool("update-sqldoc", false, "rewrite the ```text blocks of docs/sql.md with psql's output")

const sqlDocPath = "../docs/sql.md"

// docBlock is one fenced block of a Markdown document.
type docBlock struct {
	info       string // the info string after ``` (e.g. "sql", "sql setup", "text")
	body       string
	start, end int // line indexes of the body (end exclusive)
}

// fencedBlocks returns the fenced blocks of md, in order.
func fencedBlocks(lines []string) []docBlock {
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") || strings.TrimSpace(lines[i]) == "```" {
			continue
		}
		b := docBlock{info: strings.TrimSpace(strings.TrimPrefix(lines[i], "```")), start: i + 1}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
			j++
		}
		b.end = j
		b.body = strings.Join(lines[b.start:b.end], "\n")
		out = append(out, b)
		i = j
	}
	return out
}

// TestSQLDocExamples runs every ```sql block of docs/sql.md through psql, in order, against a
// fresh database seeded by the ```sql setup block, and compares each output with the ```text block
// that follows it, so the documentation cannot rot.
func TestSQLDocExamples(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(sqlDocPath)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	blocks := fencedBlocks(lines)
	u := zbtest.DB(t, nil)
	dir := t.TempDir()

	run := func(i int, sql string) string {
		f := filepath.Join(dir, "example.sql")
		require.NoError(t, os.WriteFile(f, []byte(sql+"\n"), 0o600))
		out, err := zbtest.Psql(t, u, "-q", "-f", f)
		require.NoError(t, err, "block %d:\n%s\n%s", i, sql, out)
		return out
	}
	examples, setups := 0, 0
	type edit struct {
		b   docBlock
		out string
	}
	var edits []edit
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		switch b.info {
		case "sql setup":
			run(i, b.body)
			setups++
		case "sql":
			require.Less(t, i+1, len(blocks), "sql block at line %d has no ```text block after it", b.start)
			want := blocks[i+1]
			require.Equal(t, "text", want.info, "sql block at line %d must be followed by a ```text block", b.start)
			got := run(i, b.body)
			if *updateSQLDoc {
				edits = append(edits, edit{want, untrimHeader(got)})
			} else {
				require.Equal(t, strings.TrimSpace(want.body), got, "example at line %d of docs/sql.md:\n%s", b.start, b.body)
			}
			examples++
			i++
		}
	}
	require.Equal(t, 1, setups, "docs/sql.md needs exactly one ```sql setup block")
	require.GreaterOrEqual(t, examples, 10, "docs/sql.md should show every function")
	if *updateSQLDoc {
		for k := len(edits) - 1; k >= 0; k-- {
			e := edits[k]
			lines = append(lines[:e.b.start], append(strings.Split(e.out, "\n"), lines[e.b.end:]...)...)
		}
		require.NoError(t, os.WriteFile(sqlDocPath, []byte(strings.Join(lines, "\n")), 0o644))
	}
}

// untrimHeader restores the leading blanks of a psql table's header line, which zbtest.Psql
// trims with the rest of the output: an aligned header is as wide as the rule under it.
func untrimHeader(out string) string {
	ls := strings.SplitN(out, "\n", 3)
	if len(ls) < 2 || !strings.HasPrefix(ls[1], "-") {
		return out
	}
	if pad := len(ls[1]) - len(ls[0]); pad > 0 {
		ls[0] = strings.Repeat(" ", pad) + ls[0]
	}
	return strings.Join(ls, "\n")
}
