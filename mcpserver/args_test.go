package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/embed"
	"github.com/zenbrain/zb/internal/zbtest"
	"github.com/zenbrain/zb/mcpserver"
)

// session connects an MCP client to a server of tenant "agent" over the SDK's in-memory
// transport.
func session(t *testing.T) *mcp.ClientSession {
	t.Helper()
	const dim = 32
	pool := zbtest.Pool(t, &zbtest.Opts{EmbeddingDim: dim})
	emb, err := embed.New(&embed.Config{Dim: dim})
	require.NoError(t, err)
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb})
	require.NoError(t, err)
	srv, err := mcpserver.New(&mcpserver.Config{Coordinator: co, Tenant: "agent"})
	require.NoError(t, err)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// toolError calls a tool and returns its error text ("" when it succeeded).
func toolError(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s %v: a tool error, not a protocol error", name, args)
	if !res.IsError {
		return ""
	}
	require.Len(t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text
}

// A required argument that is null, missing or of the wrong JSON type is a tool error naming the
// argument and what it must be, for every tool; never the schema validator's internals
// ("<invalid reflect.Value>"). A null optional argument counts as absent.
func TestToolArguments(t *testing.T) {
	t.Parallel()
	cs := session(t)

	valid := map[string]map[string]any{
		"remember":          {"content": "Alice likes tea"},
		"recall":            {"query": "tea"},
		"context":           {"query": "tea"},
		"forget":            {"id": 1 << 40},
		"feedback":          {"id": 1 << 40, "used": true},
		"core_set":          {"label": "name", "content": "My name is Sam"},
		"intention_dismiss": {"id": 1 << 40},
	}
	for _, tc := range []struct {
		tool, arg, want string
		wrong           any
	}{
		{"remember", "content", "content must be a non-empty string", 42},
		{"recall", "query", "query must be a non-empty string", 42},
		{"context", "query", "query must be a string", true},
		{"forget", "id", "id must be a positive integer", "seven"},
		{"feedback", "id", "id must be a positive integer", 1.5},
		{"feedback", "used", "used must be true or false", "yes"},
		{"core_set", "label", "label must be a non-empty string", []string{"name"}},
		{"core_set", "content", "content must be a non-empty string", map[string]any{}},
		{"intention_dismiss", "id", "id must be a positive integer", nil},
	} {
		for _, v := range []any{nil, tc.wrong, "missing"} {
			args := map[string]any{}
			for k, x := range valid[tc.tool] {
				args[k] = x
			}
			if v == "missing" {
				delete(args, tc.arg)
			} else {
				args[tc.arg] = v
			}
			got := toolError(t, cs, tc.tool, args)
			require.Equal(t, tc.want, got, "%s %v", tc.tool, args)
		}
	}

	// Optional arguments: null means absent (the default), a wrong type names the argument.
	require.Empty(t, toolError(t, cs, "recall", map[string]any{"query": "tea", "k": nil}))
	require.Equal(t, "k must be an integer", toolError(t, cs, "recall", map[string]any{"query": "tea", "k": "five"}))
	require.Empty(t, toolError(t, cs, "remember", map[string]any{"content": "Bob likes coffee", "layer": nil, "context": nil}))
	require.Empty(t, toolError(t, cs, "context", map[string]any{"query": "", "budget": nil}))
	require.Empty(t, toolError(t, cs, "intentions", map[string]any{"status": nil, "limit": nil}))
	require.Empty(t, toolError(t, cs, "knowledge_gaps", map[string]any{"n": nil}))
	require.Equal(t, "entities must be a list of strings",
		toolError(t, cs, "intention_add", map[string]any{"content": "call Anna", "entities": []any{"Anna", 3}}))
	require.Equal(t, "due must be a string", toolError(t, cs, "intention_add", map[string]any{"content": "x", "due": 5}))

	// Value errors stay the tools' own: an empty query, a negative id.
	require.Contains(t, toolError(t, cs, "recall", map[string]any{"query": ""}), "empty content")
	require.Contains(t, toolError(t, cs, "forget", map[string]any{"id": -1}), "memory id must be positive")
}

// The server's list of each tool's arguments (what it checks) matches the input schema the tool
// advertises: the same names, the same required ones.
func TestToolArgumentsMatchSchemas(t *testing.T) {
	t.Parallel()
	cs := session(t)
	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	specs := mcpserver.ToolArgs()
	require.Len(t, specs, len(tools.Tools))
	for _, tl := range tools.Tools {
		b, err := json.Marshal(tl.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		require.NoError(t, json.Unmarshal(b, &schema))
		want := map[string]bool{}
		for name := range schema.Properties {
			want[name] = false
		}
		for _, name := range schema.Required {
			want[name] = true
		}
		require.Equal(t, want, specs[tl.Name], tl.Name)
	}
}
