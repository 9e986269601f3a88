// Command zblifecyclebench runs zenbrain's lifecycle benchmarks (package bench/lifecycle) and
// writes results.json and results.md into a directory.
//
// Usage:
//
//	go run ./bench/lifecycle/cmd/zblifecyclebench [-out DIR] [-decay-1m] [-quick] [-shared-buffers 2GB]
//
// With ZB_DATABASE_URL set (a role that may CREATE DATABASE) it creates its databases on that
// server; otherwise it starts a throwaway PostgreSQL cluster (internal/pgcluster, Ephemeral)
// in a temporary directory and removes it at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zenbrain/zb/bench/lifecycle"
	"github.com/zenbrain/zb/internal/pgcluster"
)

// sizeRE matches a PostgreSQL memory size: a whole number with an optional unit.
var sizeRE = regexp.MustCompile(`^[0-9]+(kB|MB|GB|TB)?$`)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zblifecyclebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "bench/lifecycle/results", "directory of results.json and results.md")
	decay1M := fs.Bool("decay-1m", false, "add the 1M-memory decay run")
	quick := fs.Bool("quick", false, "small sizes (a smoke run: decay 2k, sleep 500/1000, derive 2×200)")
	target := fs.Int("migrate-target", 0, "last zb migration to apply (0: all)")
	seed := fs.Uint64("seed", 1, "seed of the generated data")
	maintSizes := fs.String("maint-sizes", "", "comma-separated tenant sizes of the review/propagation benchmark (default 10000,100000)")
	decaySizes := fs.String("decay-sizes", "", "comma-separated memory counts of the decay benchmark (default 10000,100000; -decay-1m adds 1M)")
	sleepSizes := fs.String("sleep-sizes", "", "comma-separated tenant sizes of the sleep benchmark, the first the baseline (default 1000,2000,5000,10000)")
	sleepDerived := fs.Int("sleep-derived", lifecycle.SleepDerivedDefault, "memories of a sleep tenant stored and derived; larger sizes add server-side copies of them")
	sharedBuffers := fs.String("shared-buffers", "128MB", "shared_buffers of the throwaway cluster (ignored with ZB_DATABASE_URL)")
	only := fs.String("only", "", "run only these experiments, comma-separated: decay, maint, sleep, derive (default: all)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *sleepDerived < 100 {
		fmt.Fprintf(stderr, "zblifecyclebench: -sleep-derived must be at least 100, got %d\n", *sleepDerived)
		return 2
	}
	if !sizeRE.MatchString(*sharedBuffers) {
		fmt.Fprintf(stderr, "zblifecyclebench: -shared-buffers must be a size such as 128MB or 2GB, got %q\n", *sharedBuffers)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := &lifecycle.Config{AdminURL: getenv("ZB_DATABASE_URL"), MigrateTarget: *target, Seed: *seed, Logger: logger, SleepDerived: *sleepDerived}
	if *decay1M {
		cfg.DecaySizes = append(append([]int{}, lifecycle.DecaySizesDefault...), 1_000_000)
	}
	if *quick {
		cfg.DecaySizes, cfg.SleepSizes, cfg.DeriveTenants, cfg.DerivePerTenant = []int{2_000}, []int{500, 1_000}, 2, 200
		cfg.MaintSizes = []int{1_000, 4_000}
	}
	for _, f := range []struct {
		name, value string
		into        *[]int
	}{{"maint-sizes", *maintSizes, &cfg.MaintSizes}, {"decay-sizes", *decaySizes, &cfg.DecaySizes}, {"sleep-sizes", *sleepSizes, &cfg.SleepSizes}} {
		if f.value == "" {
			continue
		}
		ns, err := parseSizes(f.value)
		if err != nil {
			fmt.Fprintf(stderr, "zblifecyclebench: -%s: %v\n", f.name, err)
			return 2
		}
		if f.name == "decay-sizes" && *decay1M {
			ns = append(ns, 1_000_000)
		}
		*f.into = ns
	}
	if *only != "" {
		want := map[string]bool{}
		for _, x := range strings.Split(*only, ",") {
			switch x = strings.TrimSpace(x); x {
			case "decay", "maint", "sleep", "derive":
				want[x] = true
			default:
				fmt.Fprintf(stderr, "zblifecyclebench: unknown experiment %q in -only (decay, maint, sleep, derive)\n", x)
				return 2
			}
		}
		if !want["decay"] {
			cfg.DecaySizes = []int{}
		}
		if !want["maint"] {
			cfg.MaintSizes = []int{}
		}
		if !want["sleep"] {
			cfg.SleepSizes = []int{}
		}
		if !want["derive"] {
			cfg.DeriveTenants = -1
		}
	}
	if cfg.AdminURL == "" {
		u, cleanup, err := ephemeral(ctx, *sharedBuffers)
		if err != nil {
			fmt.Fprintf(stderr, "zblifecyclebench: %v\n", err)
			return 1
		}
		defer cleanup()
		cfg.AdminURL = u
	}
	res, err := lifecycle.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "zblifecyclebench: %v\n", err)
		return 1
	}
	if err := res.Write(*out); err != nil {
		fmt.Fprintf(stderr, "zblifecyclebench: %v\n", err)
		return 1
	}
	res.Markdown(stdout)
	fmt.Fprintf(stdout, "results: %s\n", filepath.Join(*out, "results.{json,md}"))
	return 0
}

// ephemeral starts a throwaway cluster and returns the URL of its maintenance database.
func ephemeral(ctx context.Context, sharedBuffers string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "zblifecyclebench-")
	if err != nil {
		return "", nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	cl, err := pgcluster.New(&pgcluster.Config{
		Dir: filepath.Join(dir, "pg"), AnyPort: true, Ephemeral: true, Database: "postgres",
		Settings: map[string]string{
			"max_connections": "100", "log_min_messages": "fatal", "shared_buffers": "'" + sharedBuffers + "'",
			"shared_preload_libraries": "'pg_stat_statements'",
		},
	})
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	cleanup := func() {
		c, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = cl.Destroy(c)
		_ = os.RemoveAll(dir)
	}
	if err := cl.Init(ctx); err != nil {
		cleanup()
		return "", nil, err
	}
	if err := cl.Start(ctx); err != nil {
		cleanup()
		return "", nil, err
	}
	u, err := cl.URL()
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return u, cleanup, nil
}

// parseSizes parses comma-separated positive memory counts.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, x := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number", x)
		}
		out = append(out, n)
	}
	return out, nil
}
