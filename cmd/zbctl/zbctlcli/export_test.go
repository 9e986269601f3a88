package zbctlcli

import (
	"strings"

	"github.com/spf13/cobra"
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
