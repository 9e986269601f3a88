package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zenbrain/zb/algorithms/curiosity"
	"github.com/zenbrain/zb/coordinator"
)

// IntentionAddIn is the input of the intention_add tool.
type IntentionAddIn struct {
	Text     string   `json:"text,omitempty" jsonschema:"a reminder sentence in English or German, e.g. 'remind me to call mom tomorrow at 9' or 'when I talk to Anna, ask about the trip'"`
	Content  string   `json:"content,omitempty" jsonschema:"what to remind of, instead of text; needs due, cue or entities"`
	Due      string   `json:"due,omitempty" jsonschema:"due time in RFC 3339 (time trigger)"`
	Cue      string   `json:"cue,omitempty" jsonschema:"cue text: fires when a stored or recalled text mentions it"`
	Entities []string `json:"entities,omitempty" jsonschema:"entity names that fire the cue"`
	Priority string   `json:"priority,omitempty" jsonschema:"low, medium or high"`
}

// IntentionsIn is the input of the intentions tool.
type IntentionsIn struct {
	Status string `json:"status,omitempty" jsonschema:"only this status: pending, fired, dismissed or expired"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many (default 100)"`
}

// IntentionsOut is the output of the intentions tool.
type IntentionsOut struct {
	Intentions []coordinator.Intention `json:"intentions"`
}

// IntentionDismissIn is the input of the intention_dismiss tool.
type IntentionDismissIn struct {
	ID int64 `json:"id" jsonschema:"id of a pending or expired intention"`
}

// GapsIn is the input of the knowledge_gaps tool.
type GapsIn struct {
	N int `json:"n,omitempty" jsonschema:"how many gaps (default 5)"`
}

// GapsOut is the output of the knowledge_gaps tool.
type GapsOut struct {
	Gaps []curiosity.Gap `json:"gaps"`
}

// addBeyondTools adds the tools of prospective memory and curiosity.
func addBeyondTools(s *mcp.Server, co *coordinator.Coordinator, tenant string) {
	mcp.AddTool(s, &mcp.Tool{Name: "intention_add", Description: "Remember to remind the user of something: at a time, or when a cue (a person, a topic) comes up. Fired reminders appear in the context block."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in IntentionAddIn) (*mcp.CallToolResult, *coordinator.Intention, error) {
			input := coordinator.IntentionInput{Text: in.Text, Content: in.Content, Cue: in.Cue, CueEntities: in.Entities, Priority: in.Priority}
			if in.Due != "" {
				t, err := time.Parse(time.RFC3339, in.Due)
				if err != nil {
					return nil, nil, fmt.Errorf("due %q is not an RFC 3339 time", in.Due)
				}
				input.DueAt = &t
			}
			it, err := co.AddIntention(ctx, tenant, input)
			return nil, it, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "intentions", Description: "List the reminders (intentions), newest first, optionally of one status."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in IntentionsIn) (*mcp.CallToolResult, IntentionsOut, error) {
			list, err := co.Intentions(ctx, tenant, in.Status, in.Limit)
			return nil, IntentionsOut{Intentions: list}, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "intention_dismiss", Description: "Dismiss a pending or expired reminder."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in IntentionDismissIn) (*mcp.CallToolResult, *coordinator.Intention, error) {
			it, err := co.DismissIntention(ctx, tenant, in.ID)
			return nil, it, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "knowledge_gaps", Description: "Topics the user asks about that memory knows little about, with a suggested action (review, ask_user, consolidate, monitor)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in GapsIn) (*mcp.CallToolResult, GapsOut, error) {
			gaps, err := co.KnowledgeGaps(ctx, tenant, in.N)
			return nil, GapsOut{Gaps: gaps}, err
		})
}
