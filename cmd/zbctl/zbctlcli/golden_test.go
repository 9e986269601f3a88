package zbctlcli_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/cmd/zbctl/zbctlcli"
)

// update rewrites the golden files: go test ./cmd/zbctl/zbctlcli/ -run Golden -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

var (
	timeRE  = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`)
	dateRE  = regexp.MustCompile(`\[\d{4}-\d{2}-\d{2}(\.\.\d{4}-\d{2}-\d{2})?\]`)
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	floatRE = regexp.MustCompile(`-?\d+\.\d{7,}(e-?\d+)?`)
	bytesRE = regexp.MustCompile(`"bytes": \d+`)
)

// scrub replaces what differs between runs: timestamps, the dates delivered lines begin with,
// UUIDs (session and install ids), long floats (rounded to 6 decimals: retrievability moves with
// the clock) and byte counts.
func scrub(s string) string {
	s = timeRE.ReplaceAllString(s, "<time>")
	s = dateRE.ReplaceAllString(s, "[<date>]")
	s = uuidRE.ReplaceAllString(s, "<uuid>")
	s = bytesRE.ReplaceAllString(s, `"bytes": <n>`)
	return floatRE.ReplaceAllStringFunc(s, func(f string) string {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return f
		}
		return strconv.FormatFloat(v, 'f', 6, 64)
	})
}

// golden compares got with testdata/<name>.golden (rewriting it with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file %s: run go test ./cmd/zbctl/zbctlcli/ -run %s -update", path, t.Name())
	require.Equal(t, string(want), got, "output differs from %s (if intended: go test ./cmd/zbctl/zbctlcli/ -run %s -update)", path, t.Name())
}

// TestHelpGolden pins the --help of every command, so a change to the CLI surface shows in
// review.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	paths := zbctlcli.CommandPaths()
	require.Greater(t, len(paths), 40, "every command and subcommand")
	seen := map[string]bool{}
	for _, p := range paths {
		name := "zbctl"
		if len(p) > 0 {
			name = strings.Join(p, "_")
		}
		seen[name+".golden"] = true
		r := run(t, map[string]string{}, append(append([]string{}, p...), "--help")...)
		require.Zero(t, r.code, "%v --help: %s", p, r.stderr)
		require.Contains(t, r.stdout, "Usage:", "%v", p)
		golden(t, "help/"+name, r.stdout)
	}
	if !*update {
		// No golden file of a removed command is left behind.
		files, err := os.ReadDir(filepath.Join("testdata", "help"))
		require.NoError(t, err)
		for _, f := range files {
			require.True(t, seen[f.Name()], "testdata/help/%s belongs to no command: delete it", f.Name())
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, marker := range map[string]string{
		"bash": "__start_zbctl", "zsh": "#compdef zbctl", "fish": "complete -c zbctl",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := run(t, map[string]string{}, "completion", shell)
		require.Zero(t, r.code, r.stderr)
		require.Contains(t, r.stdout, marker, shell)
	}
	// Completion lists the subcommands and the fixed arguments.
	r := run(t, map[string]string{}, "__complete", "jobs", "run", "")
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, []string{"decay", "review", "sleep"}, strings.Fields(strings.Split(r.stdout, ":")[0]))
	r = run(t, map[string]string{}, "__complete", "re")
	require.Zero(t, r.code, r.stderr)
	for _, c := range []string{"recall", "reconsolidation", "reembed", "review"} {
		require.Contains(t, r.stdout, c+"\t", fmt.Sprintf("completion of 're' offers %s", c))
	}
}
