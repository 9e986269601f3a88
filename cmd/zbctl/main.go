// Command zbctl is zenbrain's operator CLI: the embedded dev database, migrations and more.
// Run `zbctl --help`.
package main

import (
	"os"

	"github.com/zenbrain/zb/cmd/zbctl/zbctlcli"
)

func main() { os.Exit(zbctlcli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
