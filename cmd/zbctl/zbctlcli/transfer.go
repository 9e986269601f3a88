package zbctlcli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/coordinator"
)

func (a *app) exportCmd() *cobra.Command {
	var out string
	var emb bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a tenant's memories as JSON Lines (with provenance), to stdout or --out",
		Long: `export writes one tenant as JSON Lines: a header, then its sessions, entities, memories (layer,
kind, context, status, timestamps, validity, confidence, forgetting state, provenance, core
label, procedure, FSRS card, triple copies), mentions, entity edges and memory links. It reads
one consistent snapshot and records an audit event (tenant.export). Erased memories are left out.

With --out the file is written next to its final name and renamed when complete, so an
interrupted export leaves no partial file. Writing to stdout, the summary goes to stderr (with
--json as JSON). 'zbctl import' reads the file into any tenant of any zenbrain database.`,
		Example: `  zbctl export --tenant acme --out acme.jsonl
  zbctl export --tenant acme --embeddings | gzip > acme.jsonl.gz`,
		Args: cobra.NoArgs,
	}
	tenant := a.tenantFlag(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to FILE instead of stdout")
	cmd.Flags().BoolVar(&emb, "embeddings", false, "include the embeddings (large; without them an import embeds again)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		w := a.stdout
		var f *os.File
		if out != "" {
			dir := filepath.Dir(out)
			if f, err = os.CreateTemp(dir, "."+filepath.Base(out)+".*.tmp"); err != nil {
				return fmt.Errorf("cannot write to %s: %w (check that the directory exists and is writable)", dir, err)
			}
			defer func() {
				if f != nil {
					_ = f.Close()
					_ = os.Remove(f.Name())
				}
			}()
			w = f
		}
		bar := a.newProgress(1, "export", false)
		rep, err := co.Export(cmd.Context(), *tenant, w, &coordinator.ExportOpts{
			Embeddings: emb,
			Progress: func(done, total int64) {
				if bar.bar == nil && total > 0 {
					bar = a.newProgress(total, "export", false)
				}
				bar.set(done)
			},
		})
		if err != nil {
			if errors.Is(err, coordinator.ErrNotFound) {
				return fmt.Errorf("tenant %s does not exist (see 'zbctl stats --tenant %s'): %w", *tenant, *tenant, err)
			}
			return err
		}
		bar.finish()
		if f != nil {
			if err := f.Sync(); err != nil {
				return fmt.Errorf("error writing %s: %w", out, err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("error writing %s: %w", out, err)
			}
			if err := os.Rename(f.Name(), out); err != nil {
				return fmt.Errorf("error renaming the export to %s: %w", out, err)
			}
			f = nil
		}
		sum := a.stdout
		if out == "" {
			sum = a.stderr
		}
		if a.json {
			return a.printJSONTo(sum, map[string]any{"out": out, "export": rep})
		}
		dest := out
		if dest == "" {
			dest = "stdout"
		}
		c := rep.Counts
		fmt.Fprintf(sum, "exported tenant %s to %s: %d memories, %d sessions, %d entities, %d mentions, %d edges, %d links, "+
			"%d reviews, %d evidence, %d reconsolidations (%d bytes)\n",
			rep.Tenant, dest, c.Memories, c.Sessions, c.Entities, c.Mentions, c.Edges, c.Links, c.ReviewLogs, c.Evidence,
			c.Reconsolidations, rep.Bytes)
		return nil
	}
	return cmd
}

func (a *app) importCmd() *cobra.Command {
	var dry bool
	var batch int
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a JSON Lines export into a tenant (resumable, idempotent; - reads stdin)",
		Long: `import reads a file written by 'zbctl export' (or any file in its format, see docs/cli.md) into
a tenant, which is created when needed.

Every line is checked first; with bad lines nothing is written and each is reported with its
line number. Then the records are written in batches (--batch), each batch in one transaction:
a failing batch leaves nothing behind and names its lines. Every memory is recorded under a
stable key (its export key, its external id, or a content hash), so running the same import
again — after an interruption or not — skips what is already there and adds the rest.

Embeddings in the file are kept when the dimension and model match this database; otherwise the
worker embeds the memories again (re-embedding jobs).`,
		Example: `  zbctl import --tenant acme-copy acme.jsonl
  zbctl import --dry-run acme.jsonl
  gunzip -c acme.jsonl.gz | zbctl import --tenant acme -`,
		Args: cobra.ExactArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	cmd.Flags().BoolVar(&dry, "dry-run", false, "check every line and report what would be imported; write nothing")
	intRangeVar(cmd.Flags(), &batch, "batch", coordinator.ImportBatchDefault, 1, coordinator.ImportMaxBatch, fmt.Sprintf("records per transaction (1..%d)", coordinator.ImportMaxBatch))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var in *os.File
		if args[0] == "-" {
			// Import reads its input twice: spool stdin to a temporary file.
			tmp, err := os.CreateTemp("", "zbctl-import-*.jsonl")
			if err != nil {
				return fmt.Errorf("error spooling stdin: %w", err)
			}
			defer func() { _ = tmp.Close(); _ = os.Remove(tmp.Name()) }()
			if _, err := io.Copy(tmp, a.stdin); err != nil {
				return fmt.Errorf("error spooling stdin: %w", err)
			}
			in = tmp
		} else {
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("cannot open %s: %w", args[0], err)
			}
			defer f.Close()
			in = f
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		bars := map[string]*progress{}
		rep, err := co.Import(cmd.Context(), *tenant, in, &coordinator.ImportOpts{
			DryRun: dry, BatchSize: batch,
			Progress: func(phase string, done, total int64) {
				b := bars[phase]
				if b == nil {
					b = a.newProgress(total, phase, true)
					bars[phase] = b
				}
				b.set(done)
			},
		})
		for _, b := range bars {
			b.finish()
		}
		if err != nil {
			var ie *coordinator.ImportError
			var be *coordinator.ImportBatchError
			switch {
			case errors.As(err, &ie):
				return fmt.Errorf("%s: %w\nfix these lines and run the import again", args[0], err)
			case errors.As(err, &be):
				return fmt.Errorf("%s: %w\nfix the cause and run the same command again to resume", args[0], err)
			}
			return err
		}
		if a.json {
			return a.printJSON(rep)
		}
		r := rep.Records
		if dry {
			fmt.Fprintf(a.stdout, "%s is valid: %d lines, %d memories, %d sessions, %d entities, %d mentions, %d edges, %d links, "+
				"%d reviews, %d evidence, %d reconsolidations (nothing written)\n",
				args[0], rep.Lines, r.Memories, r.Sessions, r.Entities, r.Mentions, r.Edges, r.Links, r.ReviewLogs, r.Evidence,
				r.Reconsolidations)
			return nil
		}
		n := rep.Imported
		fmt.Fprintf(a.stdout, "imported into tenant %s: %d memories (%d already there), %d sessions, %d entities, %d mentions, %d edges, "+
			"%d links, %d reviews, %d evidence, %d reconsolidations in %d batches\n",
			rep.Tenant, n.Memories, rep.Existing, n.Sessions, n.Entities, n.Mentions, n.Edges, n.Links, n.ReviewLogs, n.Evidence,
			n.Reconsolidations, rep.Batches)
		if rep.EmbeddingsQueued+rep.Underived > 0 {
			fmt.Fprintf(a.stdout, "%d memories kept their embedding; %d are queued for embedding and %d for derivation (run zbworker)\n",
				rep.EmbeddingsKept, rep.EmbeddingsQueued, rep.Underived)
		}
		if rep.Unresolved > 0 {
			fmt.Fprintf(a.stdout, "%d provenance references point to memories not in the file and were dropped\n", rep.Unresolved)
		}
		return nil
	}
	return cmd
}
