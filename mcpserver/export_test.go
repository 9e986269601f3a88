package mcpserver

// ToolArgs returns, per tool, its arguments and whether each is required.
func ToolArgs() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for tool, args := range toolArgs {
		out[tool] = map[string]bool{}
		for _, a := range args {
			out[tool][a.name] = a.required
		}
	}
	return out
}
