// Package mcpserver exposes zenbrain to agents over the Model Context Protocol (MCP), with the
// official Go SDK. One server serves one tenant. Tools:
//
//	remember   store a memory (routed to its layer, or an explicit layer)
//	recall     the memories that best answer a query, with scores, layers and confidence
//	context    a token-budgeted context block: core, working and recalled memories
//	forget     remove a memory
//	feedback   grade a recalled memory as used or not (feeds TD values, FSRS and the monitor)
//	core_set   set a core (identity) memory by label
//	intention_add, intentions, intention_dismiss
//	           prospective memory: reminders fired by time or by a cue (beyond.go)
//	knowledge_gaps
//	           topics asked about but little known, with a suggested action
//
// and the resource zenbrain://core, the tenant's core memories as text.
//
// A required argument that is missing, null or of the wrong JSON type is a tool error that names
// it ("query must be a non-empty string"); a null optional argument takes its default.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zenbrain/zb/coordinator"
)

// CoreURI is the URI of the core-memory resource.
const CoreURI = "zenbrain://core"

// Config configures a server.
type Config struct {
	// Coordinator serves the tools. Required.
	Coordinator *coordinator.Coordinator
	// Tenant is the tenant every tool acts on. Required.
	Tenant string
	// Version is reported to clients.
	Version string
}

// RememberIn is the input of the remember tool.
type RememberIn struct {
	Content string `json:"content" jsonschema:"the text to remember"`
	Layer   string `json:"layer,omitempty" jsonschema:"optional layer: working, short_term, episodic, semantic, procedural, core, cross_context; routed when empty"`
	Context string `json:"context,omitempty" jsonschema:"optional context (domain) such as work or personal"`
}

// RememberOut is the output of the remember tool.
type RememberOut struct {
	ID    int64  `json:"id"`
	Layer string `json:"layer"`
	Kind  string `json:"kind"`
	Rule  string `json:"rule"`
}

// RecallIn is the input of the recall tool.
type RecallIn struct {
	Query string `json:"query" jsonschema:"what to look for"`
	K     int    `json:"k,omitempty" jsonschema:"number of results, 1..100 (default 5)"`
}

// RecallHit is one recalled memory.
type RecallHit struct {
	ID         int64   `json:"id"`
	Layer      string  `json:"layer"`
	Content    string  `json:"content"`
	Score      float64 `json:"score"`
	Confidence float64 `json:"confidence"`
	// When is when it happened (a date or first..last span); Dates are the relative dates of
	// its text resolved ("yesterday = 2023-05-07").
	When  string   `json:"when"`
	Dates []string `json:"dates,omitempty"`
	// Excerpt reports that Content holds only the memory's lines that match the query best.
	Excerpt bool `json:"excerpt,omitempty"`
}

// RecallOut is the output of the recall tool.
type RecallOut struct {
	Class   string      `json:"class"`
	Results []RecallHit `json:"results"`
}

// ContextIn is the input of the context tool.
type ContextIn struct {
	Query  string `json:"query" jsonschema:"the task or question the context is for"`
	Budget int    `json:"budget,omitempty" jsonschema:"token budget (default 800)"`
}

// ContextOut is the output of the context tool.
type ContextOut struct {
	Text string `json:"text"`
	Used int    `json:"used_tokens"`
}

// ForgetIn is the input of the forget tool.
type ForgetIn struct {
	ID int64 `json:"id" jsonschema:"id of the memory to remove"`
}

// ForgetOut is the output of the forget tool.
type ForgetOut struct {
	Forgotten bool `json:"forgotten"`
}

// FeedbackIn is the input of the feedback tool.
type FeedbackIn struct {
	ID   int64 `json:"id" jsonschema:"id of a recalled memory"`
	Used bool  `json:"used" jsonschema:"whether the memory helped"`
}

// CoreSetIn is the input of the core_set tool.
type CoreSetIn struct {
	Label   string `json:"label" jsonschema:"the core label, e.g. name or language"`
	Content string `json:"content" jsonschema:"the identity fact"`
}

// New returns an MCP server with zenbrain's tools and resource.
func New(cfg *Config) (*mcp.Server, error) {
	if cfg.Coordinator == nil {
		return nil, errors.New("mcpserver: Config.Coordinator is required")
	}
	if cfg.Tenant == "" {
		return nil, errors.New("mcpserver: Config.Tenant is required")
	}
	co, tenant := cfg.Coordinator, cfg.Tenant
	s := mcp.NewServer(&mcp.Implementation{Name: "zenbrain", Version: cfg.Version}, nil)
	s.AddReceivingMiddleware(checkArgs) // args.go

	mcp.AddTool(s, &mcp.Tool{Name: "remember", Description: "Store a memory. Without a layer, zenbrain routes it (facts, episodes, skills, identity)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in RememberIn) (*mcp.CallToolResult, RememberOut, error) {
			res, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: in.Content, Layer: coordinator.Layer(in.Layer), Context: in.Context})
			if err != nil {
				return nil, RememberOut{}, err
			}
			return nil, RememberOut{ID: res.ID, Layer: string(res.Layer), Kind: res.Kind, Rule: res.Route}, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "recall", Description: "Recall the memories that best answer a query."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in RecallIn) (*mcp.CallToolResult, RecallOut, error) {
			k := in.K
			if k == 0 {
				k = 5
			}
			if k < 1 || k > 100 {
				return nil, RecallOut{}, fmt.Errorf("k must be in 1..100, got %d", in.K)
			}
			res, err := co.Recall(ctx, tenant, in.Query, &coordinator.RecallOpts{K: k})
			if err != nil {
				return nil, RecallOut{}, err
			}
			out := RecallOut{Class: string(res.Class), Results: []RecallHit{}}
			for _, r := range res.Results {
				hit := RecallHit{
					ID: r.ID, Layer: string(r.Layer), Content: r.Content, Score: r.Score, Confidence: r.Confidence,
					When: r.When, Excerpt: r.Excerpt,
				}
				for _, d := range r.Dates {
					hit.Dates = append(hit.Dates, d.String())
				}
				out.Results = append(out.Results, hit)
			}
			return nil, out, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "context", Description: "A token-budgeted context block: core memories, working memory, then recalled memories."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ContextIn) (*mcp.CallToolResult, ContextOut, error) {
			budget := in.Budget
			if budget == 0 {
				budget = 800
			}
			blk, err := co.Context(ctx, tenant, nil, in.Query, budget)
			if err != nil {
				return nil, ContextOut{}, err
			}
			return nil, ContextOut{Text: blk.Text, Used: blk.Used}, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "forget", Description: "Remove a memory by id."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ForgetIn) (*mcp.CallToolResult, ForgetOut, error) {
			ok, err := co.Forget(ctx, tenant, in.ID)
			return nil, ForgetOut{Forgotten: ok}, err
		})

	mcp.AddTool(s, &mcp.Tool{Name: "feedback", Description: "Grade a recalled memory as used (helpful) or not; it feeds value estimates, review scheduling and the metacognitive monitor."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in FeedbackIn) (*mcp.CallToolResult, coordinator.FeedbackResult, error) {
			res, err := co.Feedback(ctx, tenant, in.ID, in.Used)
			if err != nil {
				return nil, coordinator.FeedbackResult{}, err
			}
			return nil, *res, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "core_set", Description: "Set a core (identity) memory by label; an existing label is updated, never duplicated."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in CoreSetIn) (*mcp.CallToolResult, RememberOut, error) {
			if strings.TrimSpace(in.Label) == "" {
				return nil, RememberOut{}, errors.New("label is required")
			}
			res, err := co.Store(ctx, coordinator.StoreInput{TenantID: tenant, Content: in.Content, Layer: coordinator.LayerCore, CoreLabel: in.Label})
			if err != nil {
				return nil, RememberOut{}, err
			}
			return nil, RememberOut{ID: res.ID, Layer: string(res.Layer), Kind: res.Kind, Rule: res.Outcome}, nil
		})

	addBeyondTools(s, co, tenant)

	s.AddResource(&mcp.Resource{URI: CoreURI, Name: "core", Description: "The tenant's core (identity) memories", MIMEType: "text/plain"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			core, err := co.CoreMemories(ctx, tenant)
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			for _, m := range core {
				fmt.Fprintf(&b, "- %s: %s\n", m.Label, m.Content)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: CoreURI, MIMEType: "text/plain", Text: b.String()}}}, nil
		})
	return s, nil
}
