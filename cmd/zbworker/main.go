// Command zbworker runs zenbrain's background jobs (derive, decay, review, sleep, propagation,
// consolidation) on River. Run `zbworker --help`.
package main

import (
	"os"

	"github.com/zenbrain/zb/cmd/zbworker/zbworkercli"
)

func main() { os.Exit(zbworkercli.Run(os.Args[1:], os.Stdout, os.Stderr)) }
