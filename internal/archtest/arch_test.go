package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/zenbrain/zb"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/...")
	out, err := cmd.Output()
	require.NoError(t, err, "go list failed")
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

func TestPurePackagesImportNoDatabase(t *testing.T) {
	t.Parallel()
	forbidden := []string{
		"github.com/jackc/pgx", "github.com/riverqueue", "github.com/pgvector",
		module + "/db", module + "/dbconn", module + "/migrate", module + "/coordinator", module + "/worker",
		module + "/internal/zbtest", module + "/internal/pgcluster", "net/http", "os/exec",
	}
	checked := 0
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		if !strings.HasPrefix(rel, "algorithms") && !strings.HasPrefix(rel, "pma") {
			continue
		}
		checked++
		for _, d := range p.Deps {
			for _, f := range forbidden {
				require.False(t, d == f || strings.HasPrefix(d, f+"/"),
					"%s must stay pure but depends on %s", p.ImportPath, d)
			}
		}
	}
	require.Greater(t, checked, 10)
}

func TestTestHelpersStayInTests(t *testing.T) {
	t.Parallel()
	for _, p := range listPackages(t) {
		for _, imp := range p.Imports {
			require.NotEqual(t, module+"/internal/zbtest", imp, "%s imports the test kit from non-test code", p.ImportPath)
			require.False(t, strings.HasPrefix(imp, "github.com/stretchr/testify"), "%s imports testify from non-test code", p.ImportPath)
		}
	}
}

func TestCommandsImportNothingFromEachOther(t *testing.T) {
	t.Parallel()
	for _, p := range listPackages(t) {
		if strings.HasPrefix(p.ImportPath, module+"/cmd/") {
			continue
		}
		for _, imp := range p.Imports {
			require.False(t, strings.HasPrefix(imp, module+"/cmd/"), "%s imports command package %s", p.ImportPath, imp)
		}
	}
}
