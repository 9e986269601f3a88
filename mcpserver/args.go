package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// argKind is the JSON type a tool argument takes.
type argKind int

const (
	argString  argKind = iota // a string
	argText                   // a string, meant to be non-empty (the tool checks the value)
	argInt                    // an integer
	argID                     // an integer, meant to be a positive id (the tool checks the value)
	argBool                   // true or false
	argStrings                // an array of strings
)

// rule says what an argument of kind k must be, after its name: "query must be a non-empty
// string".
func (k argKind) rule() string {
	switch k {
	case argText:
		return "must be a non-empty string"
	case argInt:
		return "must be an integer"
	case argID:
		return "must be a positive integer"
	case argBool:
		return "must be true or false"
	case argStrings:
		return "must be a list of strings"
	default:
		return "must be a string"
	}
}

// accepts reports whether raw (a JSON value, not null) has the JSON type of kind k. Values are
// the tools' to check (an empty query, a negative id): their errors say more.
func (k argKind) accepts(raw json.RawMessage) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	switch k {
	case argInt, argID:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case argBool:
		_, ok := v.(bool)
		return ok
	case argStrings:
		list, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range list {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	default:
		_, ok := v.(string)
		return ok
	}
}

// toolArg is an argument of a tool.
type toolArg struct {
	name     string
	kind     argKind
	required bool
}

// toolArgs lists every tool's arguments, as its input struct declares them (a test compares
// the two): checkArgs checks them before the SDK validates the arguments against the tool's
// schema, whose messages would show the validator's internals ("type: <invalid reflect.Value>
// has type "null", want "string"").
var toolArgs = map[string][]toolArg{
	"remember": {{"content", argText, true}, {"layer", argString, false}, {"context", argString, false}},
	"recall":   {{"query", argText, true}, {"k", argInt, false}},
	"context":  {{"query", argString, true}, {"budget", argInt, false}},
	"forget":   {{"id", argID, true}},
	"feedback": {{"id", argID, true}, {"used", argBool, true}},
	"core_set": {{"label", argText, true}, {"content", argText, true}},
	"intention_add": {
		{"text", argString, false},
		{"content", argString, false},
		{"due", argString, false},
		{"cue", argString, false},
		{"entities", argStrings, false},
		{"priority", argString, false},
	},
	"intentions":        {{"status", argString, false}, {"limit", argInt, false}},
	"intention_dismiss": {{"id", argID, true}},
	"knowledge_gaps":    {{"n", argInt, false}},
}

// checkArgs is a receiving middleware for tools/call. A required argument that is missing, null
// or of the wrong JSON type, or an optional one of the wrong type, gives a tool error naming it
// ("query must be a non-empty string"). A null optional argument is dropped: it takes its
// default, as when absent. Anything else (arguments that are not an object, unknown tools) is
// left to the SDK.
func checkArgs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		specs, ok := toolArgs[call.Params.Name]
		if !ok {
			return next(ctx, method, req)
		}
		args, err := checkToolArgs(specs, call.Params.Arguments)
		if err != nil {
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		call.Params.Arguments = args
		return next(ctx, method, req)
	}
}

// checkToolArgs checks raw, a tool's arguments, against specs and returns them without null
// optional arguments.
func checkToolArgs(specs []toolArg, raw json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return raw, nil //nolint:nilerr // not an object: the SDK's validation reports it
		}
	}
	dropped := false
	for _, a := range specs {
		v, present := m[a.name]
		null := present && bytes.Equal(bytes.TrimSpace(v), []byte("null"))
		switch {
		case a.required && (!present || null), present && !null && !a.kind.accepts(v):
			return nil, fmt.Errorf("%s %s", a.name, a.kind.rule())
		case null:
			delete(m, a.name)
			dropped = true
		}
	}
	if !dropped {
		return raw, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("error encoding the arguments: %w", err)
	}
	return b, nil
}
