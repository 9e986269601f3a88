package zbctlcli

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zenbrain/zb/coordinator"
)

// Flag values that check themselves when parsed, so a bad value fails before anything connects,
// and flagError, which words every flag parse error the same way:
//
//	invalid argument "x" for -k/--k: must be an integer in 1..1000
//	invalid argument "0" for -k/--k: must be in 1..1000
//	invalid tenant id "a b" for --tenant: a tenant id is 1 to 128 characters: ...

// ruleError says what a flag value must be; flagError shows it after the flag's name.
type ruleError struct {
	what string // what the value is: "argument" (default) or "tenant id"
	rule string // "must be in 1..1000"
}

func (e ruleError) Error() string { return e.rule }

// intRange is an int flag that accepts only min..max.
type intRange struct {
	p        *int
	min, max int
}

func (v *intRange) String() string { return strconv.Itoa(*v.p) }
func (v *intRange) Type() string   { return "int" }

func (v *intRange) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return ruleError{rule: fmt.Sprintf("must be an integer in %d..%d", v.min, v.max)}
	}
	if n < v.min || n > v.max {
		return ruleError{rule: fmt.Sprintf("must be in %d..%d", v.min, v.max)}
	}
	*v.p = n
	return nil
}

// intRangeVarP defines an int flag with shorthand (may be empty) that accepts only min..max.
func intRangeVarP(f *pflag.FlagSet, p *int, name, shorthand string, value, lo, hi int, usage string) {
	*p = value
	f.VarP(&intRange{p: p, min: lo, max: hi}, name, shorthand, usage)
}

// intRangeVar is intRangeVarP without a shorthand.
func intRangeVar(f *pflag.FlagSet, p *int, name string, value, lo, hi int, usage string) {
	intRangeVarP(f, p, name, "", value, lo, hi, usage)
}

// tenantValue is a --tenant flag: a valid tenant id (coordinator.CheckTenant), or empty where
// empty means every tenant (optional).
type tenantValue struct {
	p        *string
	optional bool
}

func (v *tenantValue) String() string { return *v.p }
func (v *tenantValue) Type() string   { return "string" }

func (v *tenantValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

func (v *tenantValue) check(s string) error {
	if s == "" && v.optional {
		return nil
	}
	if err := coordinator.CheckTenant(s); err != nil {
		return ruleError{what: "tenant id", rule: coordinator.TenantRule}
	}
	return nil
}

// tenantVar defines a --tenant flag of one tenant (default value).
func tenantVar(f *pflag.FlagSet, value, usage string) *string {
	p := new(string)
	*p = value
	f.Var(&tenantValue{p: p}, "tenant", usage)
	return p
}

// optionalTenantVar defines a --tenant flag whose empty default means every tenant.
func optionalTenantVar(f *pflag.FlagSet, p *string, usage string) {
	f.Var(&tenantValue{p: p, optional: true}, "tenant", usage)
}

// checkTenantDefault checks the default of cmd's --tenant when the command line did not set it:
// it comes from ZB_TENANT, which no parser saw.
func checkTenantDefault(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("tenant")
	if f == nil || f.Changed {
		return nil
	}
	v, ok := f.Value.(*tenantValue)
	if !ok {
		return nil
	}
	if err := v.check(*v.p); err != nil {
		return fmt.Errorf("invalid tenant id %q in ZB_TENANT (the default of --tenant): %w", *v.p, err)
	}
	return nil
}

// flagError is the root command's flag error function: a value a flag cannot take is reported
// with the flag's name and what it takes, never the parser's own message.
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	f := ive.GetFlag()
	name := "--" + f.Name
	if f.Shorthand != "" && f.ShorthandDeprecated == "" {
		name = "-" + f.Shorthand + "/--" + f.Name
	}
	cause := errors.Unwrap(ive)
	var re ruleError
	if errors.As(cause, &re) {
		return fmt.Errorf("invalid %s %q for %s: %s", cmp.Or(re.what, "argument"), ive.GetValue(), name, re.rule)
	}
	return fmt.Errorf("invalid argument %q for %s: %s", ive.GetValue(), name, flagRule(f, cause))
}

// flagRule says what values flag f takes, given the error of parsing a bad one.
func flagRule(f *pflag.Flag, cause error) string {
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64":
		return "must be an integer"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "must be an integer ≥ 0"
	case "float32", "float64":
		return "must be a number"
	case "bool":
		return "must be true or false"
	case "duration":
		return "must be a duration such as 90s, 5m or 1h30m"
	}
	return cause.Error()
}
