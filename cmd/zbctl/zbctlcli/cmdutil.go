package zbctlcli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// printJSONTo writes v as indented JSON to w.
func (a *app) printJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// parsePositive parses a positive integer id named what ("memory id", "job id", ...).
func parsePositive(what, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q is not a positive integer", what, s)
	}
	return n, nil
}

// stamp formats a time for tables (UTC, to the second); "-" for nil.
func stamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}
