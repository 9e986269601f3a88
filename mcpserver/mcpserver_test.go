package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

func TestMain(m *testing.M) { zbtest.Main(m) }

// TestOverStdio builds zbctl, starts `zbctl mcp` as a subprocess and drives it as an MCP client
// over its stdin/stdout.
func TestOverStdio(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "zbctl")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/zenbrain/zb/cmd/zbctl").CombinedOutput()
	require.NoError(t, err, string(out))
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 128})

	cmd := exec.Command(bin, "mcp", "--tenant", "agent")
	cmd.Env = append(os.Environ(), "ZB_DATABASE_URL="+u)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	require.ElementsMatch(t, []string{
		"remember", "recall", "context", "forget", "feedback", "core_set",
		"intention_add", "intentions", "intention_dismiss", "knowledge_gaps",
	}, names) // issue #12 added the last four

	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		require.False(t, res.IsError, "%s: %v", name, res.Content)
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	fact := call("remember", map[string]any{"content": "Alice's favourite colour is green"})
	require.Equal(t, "semantic", fact["layer"])
	call("remember", map[string]any{"content": "How to deploy: step 1 build the image, step 2 push it"})
	core := call("core_set", map[string]any{"label": "name", "content": "My name is Sam"})
	require.Equal(t, "core", core["layer"])

	rec := call("recall", map[string]any{"query": "what is Alice's favourite colour?", "k": 2})
	results := rec["results"].([]any)
	require.NotEmpty(t, results)
	first := results[0].(map[string]any)
	require.Equal(t, "Alice's favourite colour is green", first["content"])
	require.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, first["when"], "every delivered memory says when it happened")

	fb := call("feedback", map[string]any{"id": first["id"], "used": true})
	require.Equal(t, true, fb["recall_marked"])
	require.InDelta(t, 0.2, fb["value_estimate"], 1e-9, "one TD(0) step from 0 toward 1 at α 0.2")

	cx := call("context", map[string]any{"query": "deploy", "budget": 200})
	require.True(t, strings.HasPrefix(cx["text"].(string), "## Core"), cx["text"])
	require.Contains(t, cx["text"], "My name is Sam")

	// Prospective memory: a reminder whose cue the next context's recall mentions surfaces in it.
	in := call("intention_add", map[string]any{"content": "ask about the release date", "cue": "deploy"})
	require.Equal(t, "pending", in["status"])
	cx = call("context", map[string]any{"query": "deploy", "budget": 200})
	require.Contains(t, cx["text"], "## Intentions\n- ask about the release date\n")
	ins := call("intentions", map[string]any{"status": "fired"})
	require.Len(t, ins["intentions"], 1)
	final, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "intention_dismiss", Arguments: map[string]any{"id": in["id"]}})
	require.NoError(t, err)
	require.True(t, final.IsError, "a fired intention is final")
	gaps := call("knowledge_gaps", map[string]any{"n": 3})
	require.NotEmpty(t, gaps["gaps"])

	res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "zenbrain://core"})
	require.NoError(t, err)
	require.Equal(t, "- name: My name is Sam\n", res.Contents[0].Text)

	gone := call("forget", map[string]any{"id": first["id"]})
	require.Equal(t, true, gone["forgotten"])
	gone = call("forget", map[string]any{"id": first["id"]})
	require.Equal(t, false, gone["forgotten"])

	// Bad input is a tool error with a message, not a crash.
	bad, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "x", "k": 5000}})
	require.NoError(t, err)
	require.True(t, bad.IsError)
	bad, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"content": ""}})
	require.NoError(t, err)
	require.True(t, bad.IsError)
}
