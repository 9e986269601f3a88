package zbctlcli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// CommandPaths returns the argument paths of every visible zbctl command (the root as an empty
// path), with cobra's help and completion commands, for the golden tests of --help.
func CommandPaths() [][]string {
	a := &app{env: env{Home: ".zb"}}
	root := a.rootCmd()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden || strings.HasPrefix(c.Name(), "__") {
			return
		}
		out = append(out, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, []string{})
	return out
}

// Flag is a flag of a command, for the tests of flag validation.
type Flag struct {
	Name, Shorthand, Type string
}

// CommandFlags returns the local flags of every visible command, by argument path (joined with
// spaces).
func CommandFlags() map[string][]Flag {
	a := &app{env: env{Home: ".zb"}}
	root := a.rootCmd()
	out := map[string][]Flag{}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" {
				return
			}
			key := strings.Join(path, " ")
			out[key] = append(out[key], Flag{Name: f.Name, Shorthand: f.Shorthand, Type: f.Value.Type()})
		})
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, []string{})
	return out
}
