package migrate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DropKind is what a down migration's statement removes.
type DropKind string

const (
	// DropTable is a DROP TABLE; Drop.Rows is the table's row count.
	DropTable DropKind = "table"
	// DropColumn is an ALTER TABLE ... DROP COLUMN; Drop.Rows is the column's non-null values.
	DropColumn DropKind = "column"
	// DropRows is a DELETE or TRUNCATE; Drop.Rows is the rows it removes.
	DropRows DropKind = "rows"
	// DropRewrite is an UPDATE; Drop.Rows is the rows it rewrites.
	DropRewrite DropKind = "rewrite"
	// DropUnknown is a statement that may remove data and whose effect cannot be counted
	// (for example ALTER TABLE ... RENAME, ALTER COLUMN ... TYPE, DROP ... CASCADE); Drop.Rows
	// is -1. It always needs confirmation.
	DropUnknown DropKind = "unknown"
)

// Drop is one piece of data a down migration removes, counted before it runs.
type Drop struct {
	// Migration is the migration whose down removes it: "0027_activation_log", or
	// "river 002 (initial schema)" for River's.
	Migration string `json:"migration"`
	// Kind is what the statement removes.
	Kind DropKind `json:"kind"`
	// Table is the table, schema-qualified.
	Table string `json:"table,omitempty"`
	// Column is the dropped column (DropColumn only).
	Column string `json:"column,omitempty"`
	// Where is the condition of a DELETE or UPDATE, empty when it has none.
	Where string `json:"where,omitempty"`
	// Statement is the statement's text, for DropUnknown.
	Statement string `json:"statement,omitempty"`
	// Rows is the row count, the non-null values of a column, or -1 when unknown.
	Rows int64 `json:"rows"`
}

// LosesData reports whether d removes something: a non-empty table, column or row set, or an
// effect that cannot be counted.
func (d Drop) LosesData() bool { return d.Rows != 0 }

// String describes d in one line, e.g. "table zb.memory_activation (8712 rows)".
func (d Drop) String() string {
	switch d.Kind {
	case DropTable:
		return fmt.Sprintf("table %s (%s)", d.Table, plural(d.Rows, "row"))
	case DropColumn:
		return fmt.Sprintf("column %s.%s (%s)", d.Table, d.Column, plural(d.Rows, "non-null value"))
	case DropRows:
		return fmt.Sprintf("%s of %s%s", plural(d.Rows, "row"), d.Table, whereSuffix(d.Where))
	case DropRewrite:
		return fmt.Sprintf("rewrites %s of %s%s", plural(d.Rows, "row"), d.Table, whereSuffix(d.Where))
	default:
		return fmt.Sprintf("statement that cannot be counted: %s", d.Statement)
	}
}

func whereSuffix(w string) string {
	if w == "" {
		return ""
	}
	return " where " + w
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ErrConfirmationRequired is returned, as a *ConfirmationRequiredError, by Down when the
// revert removes data (or is DownOpts.All) and DownOpts.Yes is not set. Nothing was changed.
var ErrConfirmationRequired = errors.New("confirmation required")

// ConfirmationRequiredError is Down's refusal to remove data without DownOpts.Yes: it lists
// what the revert would remove. Nothing was changed.
type ConfirmationRequiredError struct {
	// All is set when the refused run was DownOpts.All.
	All bool
	// Reverting lists the zb migrations the run would revert, newest first.
	Reverting []string
	// River lists River's migration versions the run would revert, newest first.
	River []int
	// Drops is what the down migrations would remove, in the order they run, empty tables
	// included.
	Drops []Drop
}

func (e *ConfirmationRequiredError) Error() string {
	if e.All {
		return "reverting every migration deletes all data; nothing was changed"
	}
	n := 0
	for _, d := range e.Drops {
		if d.LosesData() {
			n++
		}
	}
	return fmt.Sprintf("reverting %s removes data (%d tables, columns or row sets with data); nothing was changed",
		strings.Join(e.Reverting, ", "), n)
}

// Unwrap returns ErrConfirmationRequired.
func (e *ConfirmationRequiredError) Unwrap() error { return ErrConfirmationRequired }

// downStep is one down migration to plan: its label and SQL.
type downStep struct {
	label string
	sql   string
}

// action is what one statement of a down migration does to data.
type action struct {
	kind   DropKind
	table  string // as written
	column string // as written (DropColumn)
	where  string // DropRows/DropRewrite, "" for all rows
	stmt   string // DropUnknown
}

// planDrops counts, in tx and before anything runs, what the down migrations of steps (in the
// order they run) remove. A table dropped by a later step is reported once, as a table: the
// columns, deletes and updates of earlier steps on it are not listed separately. Tables that do
// not exist yet (created by an earlier down) are empty and skipped, and so is River's
// bookkeeping table (zb's is not in a down migration).
func planDrops(ctx context.Context, tx pgx.Tx, steps []downStep) ([]Drop, error) {
	type labeled struct {
		label string
		action
	}
	var all []labeled
	dropped := map[string]bool{}
	for _, s := range steps {
		for _, a := range parseActions(s.sql) {
			all = append(all, labeled{s.label, a})
			if a.kind == DropTable {
				dropped[tableKey(a.table)] = true
			}
		}
	}
	c, err := newCounter(ctx, tx)
	if err != nil {
		return nil, err
	}
	var out []Drop
	seen := map[string]bool{}
	for _, a := range all {
		d := Drop{Migration: a.label, Kind: a.kind, Where: a.where}
		if a.kind == DropUnknown {
			d.Statement, d.Rows = a.stmt, -1
			out = append(out, d)
			continue
		}
		key := tableKey(a.table)
		if key == RiverSchema+".river_migration" {
			continue
		}
		if a.kind == DropTable {
			if seen[key] {
				continue
			}
			seen[key] = true
		} else if dropped[key] {
			continue
		}
		t, ok, err := c.table(ctx, a.table)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		d.Table = t.name
		var q string
		switch a.kind {
		case DropTable:
			q = "SELECT count(*) FROM " + t.name
		case DropColumn:
			col := identName(a.column)
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute
				WHERE attrelid = $1 AND attname = $2 AND attnum > 0 AND NOT attisdropped)`, t.oid, col).Scan(&exists); err != nil {
				return nil, fmt.Errorf("error checking column %s.%s: %w", t.name, col, err)
			}
			if !exists {
				continue
			}
			d.Column = col
			q = "SELECT count(*) FROM " + t.name + " WHERE " + pgx.Identifier{col}.Sanitize() + " IS NOT NULL"
		default:
			q = "SELECT count(*) FROM " + t.name
			if a.where != "" {
				q += " WHERE " + a.where
			}
		}
		if d.Rows, err = c.count(ctx, t, q); err != nil {
			return nil, fmt.Errorf("error counting the rows %s removes from %s: %w", a.label, t.name, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// tableInfo is a table found in the catalog.
type tableInfo struct {
	oid   uint32
	name  string // schema-qualified, quoted as needed
	rls   bool   // row-level security enabled
	force bool   // and forced on the owner
	owned bool   // the current user is (a member of) the owner
}

// counter counts rows as the migrating role sees them, with row-level security out of the way:
// policies would hide rows from the count (zb's tables force RLS on their owner).
type counter struct {
	tx     pgx.Tx
	bypass bool // superuser or BYPASSRLS
}

func newCounter(ctx context.Context, tx pgx.Tx) (*counter, error) {
	c := &counter{tx: tx}
	if err := tx.QueryRow(ctx, "SELECT rolsuper OR rolbypassrls FROM pg_catalog.pg_roles WHERE rolname = current_user").Scan(&c.bypass); err != nil {
		return nil, fmt.Errorf("error reading the migrating role: %w", err)
	}
	return c, nil
}

func (c *counter) table(ctx context.Context, name string) (tableInfo, bool, error) {
	var t tableInfo
	err := c.tx.QueryRow(ctx, `SELECT c.oid, pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname),
		c.relrowsecurity, c.relforcerowsecurity, pg_catalog.pg_has_role(c.relowner, 'USAGE')
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.oid = pg_catalog.to_regclass($1)`, name).Scan(&t.oid, &t.name, &t.rls, &t.force, &t.owned)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, false, nil
	}
	if err != nil {
		return t, false, fmt.Errorf("error looking up table %s: %w", name, err)
	}
	return t, true, nil
}

// count runs q (a count(*) over t) in a savepoint that is rolled back: as t's owner it lifts
// FORCE ROW LEVEL SECURITY there, and row_security = off makes any policy still in the way an
// error instead of a silently smaller count.
func (c *counter) count(ctx context.Context, t tableInfo, q string) (int64, error) {
	sp, err := c.tx.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("error starting a savepoint: %w", err)
	}
	defer func() { _ = sp.Rollback(ctx) }()
	if t.rls && !c.bypass {
		if !t.owned {
			return 0, fmt.Errorf("row-level security hides rows of %s from the migrating role, which does not own it: "+
				"migrate as the tables' owner or a superuser", t.name)
		}
		if t.force {
			if _, err := sp.Exec(ctx, "ALTER TABLE "+t.name+" NO FORCE ROW LEVEL SECURITY"); err != nil {
				return 0, fmt.Errorf("error lifting row-level security on %s for the count: %w", t.name, err)
			}
		}
	}
	if _, err := sp.Exec(ctx, "SET LOCAL row_security = off"); err != nil {
		return 0, fmt.Errorf("error setting row_security: %w", err)
	}
	var n int64
	if err := sp.QueryRow(ctx, q).Scan(&n); err != nil {
		return 0, err
	}
	return n, nil
}

const (
	identPat = `(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`
	qnamePat = identPat + `(?:\.` + identPat + `)?`
)

var (
	dropTableRE  = regexp.MustCompile(`(?i)^DROP TABLE (?:IF EXISTS )?(.+?)(?: (?:CASCADE|RESTRICT))?$`)
	alterTableRE = regexp.MustCompile(`(?i)^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?(` + qnamePat + `)\*? (.+)$`)
	dropColRE    = regexp.MustCompile(`(?i)^DROP (?:COLUMN )?(?:IF EXISTS )?(` + identPat + `)(?: (?:CASCADE|RESTRICT))?$`)
	deleteRE     = regexp.MustCompile(`(?i)^DELETE FROM (?:ONLY )?(` + qnamePat + `)(?: WHERE (.+))?$`)
	truncateRE   = regexp.MustCompile(`(?i)^TRUNCATE (?:TABLE )?(?:ONLY )?(.+?)(?: (?:RESTART|CONTINUE) IDENTITY)?(?: (?:CASCADE|RESTRICT))?$`)
	updateRE     = regexp.MustCompile(`(?i)^UPDATE (?:ONLY )?(` + qnamePat + `) SET (.+)$`)
	cascadeRE    = regexp.MustCompile(`(?i)^DROP (?:TYPE|DOMAIN|EXTENSION|SCHEMA|FUNCTION|PROCEDURE|ROUTINE|OPERATOR)\b.* CASCADE$`)
	dataFreeRE   = regexp.MustCompile(`(?i)^(?:CREATE|COMMENT|GRANT|REVOKE|DO|SELECT|INSERT|SET|RESET|ANALYZE|` +
		`DROP (?:FUNCTION|PROCEDURE|AGGREGATE|ROUTINE|TRIGGER|INDEX|TYPE|DOMAIN|POLICY|EXTENSION|SCHEMA|VIEW|SEQUENCE|` +
		`RULE|OPERATOR|CAST|STATISTICS|PUBLICATION|ROLE)|` +
		`ALTER (?:FUNCTION|PROCEDURE|AGGREGATE|ROUTINE|INDEX|TYPE|DOMAIN|POLICY|VIEW|SEQUENCE|EXTENSION|SCHEMA|` +
		`DEFAULT PRIVILEGES|ROLE|TRIGGER|STATISTICS))\b`)
	alterColTypeRE = regexp.MustCompile(`(?i)^ALTER (?:COLUMN )?` + identPat + ` (?:SET DATA )?TYPE\b`)
)

// parseActions lists what the top-level statements of a down migration do to data. The
// statements of DO blocks and function bodies are not looked into: zb's down migrations change
// only grants, policies and definitions in them.
func parseActions(sql string) []action {
	var out []action
	for _, s := range splitStatements(sql) {
		out = append(out, classify(s)...)
	}
	return out
}

// classify returns the data-removing actions of statement s (normalized by splitStatements);
// none for a statement that removes no data.
func classify(s string) []action {
	if m := dropTableRE.FindStringSubmatch(s); m != nil {
		var out []action
		for _, t := range splitTopLevel(m[1], ',') {
			out = append(out, action{kind: DropTable, table: t})
		}
		return out
	}
	if m := alterTableRE.FindStringSubmatch(s); m != nil {
		var out []action
		for _, act := range splitTopLevel(m[2], ',') {
			up := strings.ToUpper(act)
			switch {
			case strings.HasPrefix(up, "DROP CONSTRAINT "):
			case strings.HasPrefix(up, "DROP "):
				if c := dropColRE.FindStringSubmatch(act); c != nil {
					out = append(out, action{kind: DropColumn, table: m[1], column: c[1]})
				} else {
					out = append(out, action{kind: DropUnknown, stmt: s})
				}
			case strings.HasPrefix(up, "RENAME "), strings.HasPrefix(up, "SET SCHEMA "), alterColTypeRE.MatchString(act):
				out = append(out, action{kind: DropUnknown, stmt: s})
			}
		}
		return out
	}
	if m := deleteRE.FindStringSubmatch(s); m != nil {
		return []action{{kind: DropRows, table: m[1], where: m[2]}}
	}
	if m := truncateRE.FindStringSubmatch(s); m != nil {
		var out []action
		for _, t := range splitTopLevel(m[1], ',') {
			out = append(out, action{kind: DropRows, table: t})
		}
		return out
	}
	if m := updateRE.FindStringSubmatch(s); m != nil {
		set, where, _ := cutTopLevelKeyword(m[2], "WHERE")
		if _, _, from := cutTopLevelKeyword(set, "FROM"); from {
			return []action{{kind: DropUnknown, stmt: s}}
		}
		return []action{{kind: DropRewrite, table: m[1], where: where}}
	}
	if cascadeRE.MatchString(s) || !dataFreeRE.MatchString(s) {
		return []action{{kind: DropUnknown, stmt: s}}
	}
	return nil
}

// splitStatements splits SQL into its top-level statements: comments removed, runs of
// whitespace outside literals made one space, and the bodies of dollar-quoted strings (function
// bodies, DO blocks) replaced by $$. String literals and quoted identifiers are kept.
func splitStatements(sql string) []string {
	var out []string
	var b strings.Builder
	space := false
	emit := func() {
		if s := strings.TrimSpace(b.String()); s != "" {
			out = append(out, s)
		}
		b.Reset()
		space = false
	}
	for i := 0; i < len(sql); {
		ch := sql[i]
		switch {
		case ch == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j
			}
			space = true
		case ch == '/' && strings.HasPrefix(sql[i:], "/*"):
			depth := 0
			for i < len(sql) {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			space = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
			space = true
			i++
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			switch {
			case ch == '\'' || ch == '"':
				escapes := ch == '\'' && i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i < 2 || !isIdentByte(sql[i-2]))
				j := i + 1
				for j < len(sql) {
					if escapes && sql[j] == '\\' {
						j += 2
						continue
					}
					if sql[j] == ch {
						if j+1 < len(sql) && sql[j+1] == ch {
							j += 2
							continue
						}
						break
					}
					j++
				}
				j = min(j+1, len(sql))
				b.WriteString(sql[i:j])
				i = j
			case ch == '$' && (i == 0 || !isIdentByte(sql[i-1])):
				tag := dollarTagRE.FindString(sql[i:])
				if tag == "" {
					b.WriteByte(ch)
					i++
					continue
				}
				end := strings.Index(sql[i+len(tag):], tag)
				if end < 0 {
					i = len(sql)
				} else {
					i += len(tag) + end + len(tag)
				}
				b.WriteString("$$")
			case ch == ';':
				emit()
				i++
			default:
				b.WriteByte(ch)
				i++
			}
		}
	}
	emit()
	return out
}

var dollarTagRE = regexp.MustCompile(`^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$`)

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// splitTopLevel splits s at sep outside parentheses, literals and quoted identifiers, and trims
// the parts.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// cutTopLevelKeyword cuts s around the first occurrence of keyword (a whole word, any case)
// outside parentheses, literals and quoted identifiers.
func cutTopLevelKeyword(s, keyword string) (before, after string, found bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && (i == 0 || s[i-1] == ' ') && len(s) >= i+len(keyword) && strings.EqualFold(s[i:i+len(keyword)], keyword) &&
			(i+len(keyword) == len(s) || s[i+len(keyword)] == ' '):
			return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(keyword):]), true
		}
	}
	return s, "", false
}

// tableKey is a table name for comparison: quotes removed, unquoted parts lower-cased.
func tableKey(name string) string {
	parts := splitTopLevel(name, '.')
	for i, p := range parts {
		parts[i] = identName(p)
	}
	return strings.Join(parts, ".")
}

// identName is the name an identifier denotes: a quoted one unquoted, an unquoted one
// lower-cased.
func identName(id string) string {
	if len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"' {
		return strings.ReplaceAll(id[1:len(id)-1], `""`, `"`)
	}
	return strings.ToLower(id)
}

// isPgError reports whether err is a PostgreSQL error with one of codes.
func isPgError(err error, codes ...string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	for _, c := range codes {
		if pgErr.Code == c {
			return true
		}
	}
	return false
}
