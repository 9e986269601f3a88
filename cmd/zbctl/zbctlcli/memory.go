package zbctlcli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/db"
	"github.com/zenbrain/zb/embed"
)

// TenantDefault is the tenant of commands run without --tenant or ZB_TENANT.
const TenantDefault = "default"

// openCoordinator opens a pool and a coordinator whose embedder matches the database's
// recorded embedding dimension. close releases both.
func (a *app) openCoordinator(ctx context.Context) (*coordinator.Coordinator, *pgxpool.Pool, error) {
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
	emb, err := embed.New(&embed.Config{Provider: a.env.Embedder, Dim: dim, Model: a.env.EmbedModel, BaseURL: a.env.EmbedURL, APIKey: a.env.EmbedAPIKey})
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

func (a *app) tenantFlag(cmd *cobra.Command) *string {
	return tenantVar(cmd.Flags(), a.tenantDefault(), "tenant (default $ZB_TENANT or \"default\")")
}

func (a *app) tenantDefault() string {
	if a.env.Tenant != "" {
		return a.env.Tenant
	}
	return TenantDefault
}

func (a *app) storeCmd() *cobra.Command {
	var layer, kind, ctxName, session, occurred, label, external string
	cmd := &cobra.Command{
		Use:   "store [TEXT | -]",
		Short: "Store a memory (text from the argument, or stdin with -)",
		Long: `Store writes one memory. Without --layer the routing rules choose the layer (procedural
cues, identity cues, strong emotion and time anchors in English and German; a semantic fact
otherwise). The text is searchable at once; its derivation (entities, edges, checks) is queued
for the worker.`,
		Example: `  zbctl store "Alice's favourite colour is green"
  zbctl store --layer core --label name "My name is Sam"
  echo "Yesterday we hiked up Monte Verità" | zbctl store -`,
		Args: cobra.ExactArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	f := cmd.Flags()
	f.StringVar(&layer, "layer", "", "layer: working, short_term, episodic, semantic, procedural, core, cross_context (default: routed)")
	f.StringVar(&kind, "kind", "", "kind: fact, episode, skill, identity, ... (default: routed)")
	f.StringVar(&ctxName, "context", "", "context (domain), e.g. work or personal (default \"default\")")
	f.StringVar(&session, "session", "", "session UUID")
	f.StringVar(&occurred, "occurred-at", "", "event time, RFC 3339 (e.g. 2024-05-08T14:00:00Z)")
	f.StringVar(&label, "label", "", "core label (with --layer core): an upsert by label")
	f.StringVar(&external, "external-id", "", "caller's id for the memory (idempotent re-imports)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		text := args[0]
		if text == "-" {
			b, err := io.ReadAll(io.LimitReader(a.stdin, 16<<20))
			if err != nil {
				return fmt.Errorf("error reading stdin: %w", err)
			}
			text = strings.TrimRight(string(b), "\n")
		}
		in := coordinator.StoreInput{
			TenantID: *tenant, Content: text, Layer: coordinator.Layer(layer), Kind: kind,
			Context: ctxName, CoreLabel: label, ExternalID: external,
		}
		if session != "" {
			id, err := uuid.Parse(session)
			if err != nil {
				return fmt.Errorf("--session %q is not a UUID", session)
			}
			in.SessionID = &id
		}
		if occurred != "" {
			t, err := time.Parse(time.RFC3339, occurred)
			if err != nil {
				return fmt.Errorf("--occurred-at %q is not RFC 3339 (e.g. 2024-05-08T14:00:00Z)", occurred)
			}
			in.OccurredAt = &t
		}
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		res, err := co.Store(cmd.Context(), in)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(res)
		}
		fmt.Fprintf(a.stdout, "stored memory %d in %s (%s, rule %s, %s)\n", res.ID, res.Layer, res.Kind, res.Route, res.Outcome)
		if len(res.Superseded) > 0 {
			fmt.Fprintf(a.stdout, "supersedes %v\n", res.Superseded)
		}
		return nil
	}
	return cmd
}

func (a *app) recallCmd() *cobra.Command {
	var k int
	var explain, deep bool
	var layers []string
	cmd := &cobra.Command{
		Use:     "recall QUERY",
		Short:   "Recall the memories that best answer a query",
		Example: "  zbctl recall \"what is Alice's favourite colour?\"\n  zbctl recall --explain -k 3 \"what did we do yesterday\"",
		Args:    cobra.ExactArgs(1),
	}
	tenant := a.tenantFlag(cmd)
	intRangeVarP(cmd.Flags(), &k, "k", "k", 5, 1, coordinator.MaxK, fmt.Sprintf("number of results (1..%d)", coordinator.MaxK))
	cmd.Flags().BoolVar(&explain, "explain", false, "show the signals behind each score, and where the time went")
	cmd.Flags().BoolVar(&deep, "deep", false, "include consolidated and archived memories")
	cmd.Flags().StringSliceVar(&layers, "layers", nil, "only these layers (comma-separated)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		opts := &coordinator.RecallOpts{K: k, Deep: deep}
		for _, l := range layers {
			opts.Layers = append(opts.Layers, coordinator.Layer(l))
		}
		res, err := co.Recall(cmd.Context(), *tenant, args[0], opts)
		if err != nil {
			return err
		}
		if a.json {
			return a.printJSON(res)
		}
		if len(res.Results) == 0 {
			fmt.Fprintln(a.stdout, "no memories found")
			return nil
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "#\tSCORE\tLAYER\tID\tCONF\tCONTENT")
		for i, r := range res.Results {
			fmt.Fprintf(tw, "%d\t%.3f\t%s\t%d\t%.2f\t%s\n", i+1, r.Score, r.Layer, r.ID, r.Confidence, textproc.OneLine(aiMark(r.AIGenerated)+r.Content, 80))
			if explain {
				s := r.Signals
				fmt.Fprintf(tw, "\t\t\t\t\tcos %.3f bm25 %.3f → hybrid %.3f × layer %.1f × boost %.3f × retention %.3f (R %.3f)\n",
					s.Cosine, s.BM25, s.Hybrid, s.LayerWeight, s.Boost, s.Retention, r.Retrievability)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if explain {
			fmt.Fprintf(a.stdout, "query class %s; %d candidates; %s\n", res.Class, res.Candidates, res.Timing)
		}
		return nil
	}
	return cmd
}

func (a *app) statsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count a tenant's memories per layer and status",
		Args:  cobra.NoArgs,
	}
	tenant := a.tenantFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		pool, err := a.pool(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		rows, err := db.New(pool).MemoryCountByLayerStatus(cmd.Context(), *tenant)
		if err != nil {
			return fmt.Errorf("error counting memories: %w", err)
		}
		if a.json {
			return a.printJSON(map[string]any{"tenant": *tenant, "memories": rows})
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LAYER\tSTATUS\tMEMORIES")
		var total int64
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%d\n", r.Layer, r.Status, r.N)
			total += r.N
		}
		fmt.Fprintf(tw, "total\t\t%d\n", total)
		return tw.Flush()
	}
	return cmd
}
