package zbctlcli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/embed"
)

// ReembedPollInterval is how often 'zbctl reembed --wait' reads the progress.
const ReembedPollInterval = time.Second

var modelDimRE = regexp.MustCompile(`@\d+$`)

// reembedModel returns the embed.Config model for provider from a --model value: the provider's
// model name, also accepted in the recorded form "<provider>/<model>@<dim>". The hash provider
// has one model per dimension ("hash-v1-<dim>").
func reembedModel(provider, model string, dim int) (string, error) {
	if provider == embed.ProviderHash {
		want := fmt.Sprintf("hash-v%d-%d", embed.HashVersion, dim)
		if model != "hash" && model != want {
			return "", fmt.Errorf("--model %q: the hash provider has the one model %s at this dimension; to use another model set ZB_EMBEDDER (or --provider) to ollama or openai", model, want)
		}
		return "", nil
	}
	model = strings.TrimPrefix(model, provider+"/")
	return modelDimRE.ReplaceAllString(model, ""), nil
}

// openReembedCoordinator opens a pool and a coordinator whose embedder is provider's model.
func (a *app) openReembedCoordinator(ctx context.Context, provider, model string) (*coordinator.Coordinator, *pgxpool.Pool, error) {
	pool, err := a.pool(ctx)
	if err != nil {
		return nil, nil, err
	}
	dimText, err := db.New(pool).ConfigGet(ctx, "embedding_dim")
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("the database is not migrated (no embedding dimension recorded): run 'zbctl migrate up': %w", err)
	}
	dim, _ := strconv.Atoi(dimText)
	m, err := reembedModel(provider, model, dim)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	emb, err := embed.New(&embed.Config{Provider: provider, Dim: dim, Model: m, BaseURL: a.env.EmbedURL, APIKey: a.env.EmbedAPIKey})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	co, err := coordinator.New(&coordinator.Config{Pool: pool, Embedder: emb, Actor: a.env.Actor})
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return co, pool, nil
}

func (a *app) reembedCmd() *cobra.Command {
	var model, provider, tenant string
	var status, wait bool
	var batch int
	cmd := &cobra.Command{
		Use:   "reembed --model NAME | --status",
		Short: "Re-embed every memory with a new embedding model (versioned), or show the progress",
		Long: `reembed switches the install to a new embedding model. Every memory records the model of its
vector; the active model is recorded in zb.config. reembed probes the new model, makes it the
active one and enqueues jobs that embed every memory again in batches. From then on recall
compares queries only with vectors of the active model and finds the memories not yet
re-embedded by BM25 alone, so recall keeps working during the switch.

The jobs run in a zbworker whose embedder is the new model: restart the workers with the new
ZB_EMBEDDER / ZB_EMBED_MODEL (a worker with another model leaves the jobs alone), and use the
same settings for zbctl, MCP and your application, so queries are embedded with the new model.
Run reembed again to pick up memories stored with the old model meanwhile.

--model is the provider's model name (as ZB_EMBED_MODEL), for the provider of ZB_EMBEDDER or
--provider. --status shows how many memories have vectors of the active model and the jobs.
--wait follows the progress (a bar when stderr is a terminal) until the work is done.`,
		Example: `  ZB_EMBEDDER=ollama zbctl reembed --model nomic-embed-text --wait
  zbctl reembed --status
  zbctl --json reembed --status --tenant acme`,
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	f.StringVar(&model, "model", "", "the new embedding model (required unless --status)")
	f.StringVar(&provider, "provider", "", "embedding provider: hash, ollama or openai (default $ZB_EMBEDDER or hash)")
	f.BoolVar(&status, "status", false, "show the progress instead of starting")
	f.BoolVar(&wait, "wait", false, "after starting, follow the progress until every memory is re-embedded")
	intRangeVar(f, &batch, "batch", coordinator.ReembedBatchDefault, 1, coordinator.ReembedMaxPerJob, fmt.Sprintf("memories per job (1..%d)", coordinator.ReembedMaxPerJob))
	optionalTenantVar(f, &tenant, "with --status: count only this tenant's memories (default: all)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if status {
			if model != "" || wait {
				return errors.New("--status shows the progress; use it without --model and --wait")
			}
			co, pool, err := a.openCoordinator(ctx)
			if err != nil {
				return err
			}
			defer pool.Close()
			st, err := co.ReembedStatus(ctx, tenant)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(st)
			}
			return a.printReembedStatus(st, co.Config().Embedder)
		}
		if model == "" {
			return errors.New("--model NAME is required (or --status to see the progress)")
		}
		if tenant != "" {
			return errors.New("--tenant applies to --status only: the embedding model is install-wide")
		}
		prov := strings.ToLower(cmp.Or(provider, a.env.Embedder, embed.ProviderHash))
		co, pool, err := a.openReembedCoordinator(ctx, prov, model)
		if err != nil {
			return err
		}
		defer pool.Close()
		st, err := co.StartReembed(ctx, &coordinator.ReembedOpts{BatchSize: batch})
		if errors.Is(err, coordinator.ErrForbidden) {
			return fmt.Errorf("%w (switching the install's embedding model needs an operator role: zb_admin)", err)
		}
		if err != nil {
			return fmt.Errorf("%w (check that the %s embedder is reachable and its dimension is the install's)", err, prov)
		}
		if !a.json {
			fmt.Fprintf(a.stdout, "active embedding model: %s (was %s)\n", st.Model, orDash(st.Previous))
			fmt.Fprintf(a.stdout, "enqueued %d jobs (%d already queued) to re-embed %d memories of %d tenants\n", st.Jobs, st.Duplicates,
				st.Memories, st.Tenants)
			if st.Memories > 0 && !wait {
				fmt.Fprintln(a.stdout, "run zbworker with this embedder to do them; follow with 'zbctl reembed --status'")
			}
		}
		if !wait {
			if a.json {
				return a.printJSON(st)
			}
			return nil
		}
		final, err := a.waitReembed(ctx, co)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(map[string]any{"start": st, "status": final})
		}
		fmt.Fprintf(a.stdout, "%d of %d memories have vectors of %s\n", final.Done, final.Total, final.Active)
		return nil
	}
	return cmd
}

// waitReembed polls the progress until nothing is pending or no job is left to run.
func (a *app) waitReembed(ctx context.Context, co *coordinator.Coordinator) (*coordinator.ReembedStatus, error) {
	var bar *progress
	defer func() { bar.finish() }()
	t := time.NewTicker(ReembedPollInterval)
	defer t.Stop()
	for {
		st, err := co.ReembedStatus(ctx, "")
		if err != nil {
			return nil, err
		}
		if bar == nil {
			bar = a.newProgress(st.Total, "reembed", false)
		}
		bar.set(st.Done)
		open := st.Jobs["available"] + st.Jobs["running"] + st.Jobs["retryable"] + st.Jobs["scheduled"] + st.Jobs["pending"]
		if st.Pending == 0 || open == 0 {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped waiting (%d of %d re-embedded; the jobs go on): %w", st.Done, st.Total, ctx.Err())
		case <-t.C:
		}
	}
}

func (a *app) printReembedStatus(st *coordinator.ReembedStatus, emb coordinator.Embedder) error {
	w := a.stdout
	if st.Active == "" {
		fmt.Fprintln(w, "no active embedding model recorded: every vector is used ('zbctl reembed --model NAME' records one)")
	} else {
		pct := 100.0
		if st.Total > 0 {
			pct = 100 * float64(st.Done) / float64(st.Total)
		}
		fmt.Fprintf(w, "active model %s: %d of %d memories re-embedded (%.1f%%), %d pending (found by BM25 until done)\n",
			st.Active, st.Done, st.Total, pct, st.Pending)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tMEMORIES")
	for _, m := range st.Models {
		fmt.Fprintf(tw, "%s\t%d\n", cmp.Or(m.Model, "(none)"), m.Memories)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(st.Jobs) > 0 {
		fmt.Fprint(w, "jobs:")
		for _, s := range coordinator.JobStates() {
			if n := st.Jobs[s]; n > 0 {
				fmt.Fprintf(w, " %s %d", s, n)
			}
		}
		fmt.Fprintln(w)
	}
	if emb != nil && st.Active != "" && emb.Model() != st.Active {
		fmt.Fprintf(a.stderr, "zbctl: this zbctl embeds queries with %s, not the active %s: its recalls are lexical only; set ZB_EMBEDDER/ZB_EMBED_MODEL\n",
			emb.Model(), st.Active)
	}
	return nil
}
