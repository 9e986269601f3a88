package coordinator

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pgvector/pgvector-go"
)

// TenantPattern is the regular expression every tenant id matches; TenantRule says it in words.
const TenantPattern = `^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$`

// TenantRule describes the valid tenant ids (TenantPattern), for messages about a bad one.
const TenantRule = "a tenant id is 1 to 128 characters: a letter or digit, then letters, digits, _ . : @ or -"

var (
	tenantRE  = regexp.MustCompile(TenantPattern)
	contextRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)
	labelMax  = 200
)

// CheckTenant reports whether id is a valid tenant id (TenantRule): nil, or an error wrapping
// ErrInvalidTenant. Every Coordinator method that takes a tenant checks it the same way; callers
// such as a CLI check a tenant with it before connecting.
func CheckTenant(id string) error { return checkTenant(id) }

func checkTenant(id string) error {
	if !tenantRE.MatchString(id) {
		return fmt.Errorf("%w: %q", ErrInvalidTenant, truncate(id, 40))
	}
	return nil
}

func checkContext(ctxName string) error {
	if !contextRE.MatchString(ctxName) {
		return fmt.Errorf("%w: context %q must match %s", ErrInvalidInput, truncate(ctxName, 40), contextRE)
	}
	return nil
}

// checkText validates stored content or a query: valid UTF-8, no NUL, not blank, at most max
// bytes.
func checkText(s string, max int) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return ErrInvalidUTF8
	}
	if strings.TrimSpace(s) == "" {
		return ErrEmptyContent
	}
	if len(s) > max {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrContentTooLarge, len(s), max)
	}
	return nil
}

// checkEmbedding validates an embedding against the install's dimension.
func checkEmbedding(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("%w: got %d values, want %d", ErrDimensionMismatch, len(v), dim)
	}
	nonZero := false
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ErrInvalidEmbedding
		}
		if x != 0 {
			nonZero = true
		}
	}
	if !nonZero {
		return ErrInvalidEmbedding
	}
	return nil
}

// PostgreSQL's timestamptz range, a little inside its exact bounds (4714-11-24 BC and
// 294276-12-31 AD).
var (
	pgTimeMin = time.Date(-4712, 1, 1, 0, 0, 0, 0, time.UTC)
	pgTimeMax = time.Date(294275, 1, 1, 0, 0, 0, 0, time.UTC)
)

// clampPGTime limits t to the range PostgreSQL's timestamptz holds. Resolved date expressions
// can leave it ("9999 years ago" from 2026 is 7973 BC); a range clamped to the bounds still
// selects what the unclamped one would.
func clampPGTime(t time.Time) time.Time {
	switch {
	case t.Before(pgTimeMin):
		return pgTimeMin
	case t.After(pgTimeMax):
		return pgTimeMax
	}
	return t
}

// clampPGTimePtr is clampPGTime for an optional time.
func clampPGTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := clampPGTime(*t)
	return &c
}

func toVector(v []float32) *pgvector.Vector {
	if v == nil {
		return nil
	}
	vec := pgvector.NewVector(v)
	return &vec
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
