package textproc

import "strings"

// OneLine folds s's whitespace runs (newlines included) to single spaces and cuts the result
// to at most n runes, the last of a cut text an ellipsis; for tables and log lines.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 0)]) + "…"
	}
	return s
}
