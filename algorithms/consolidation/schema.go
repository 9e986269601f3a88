package consolidation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// SharedFractionDefault is the share of members that must mention an entity
// for the offline writer to call it shared.
const SharedFractionDefault = 0.5

// OfflineWriterName is the [Schema.Writer] value of [OfflineWriter].
const OfflineWriterName = "offline"

// Schema is the semantic memory System 2 extracts from a cluster.
type Schema struct {
	// MemberIDs are the cluster's episode IDs in (OccurredAt, ID) order; the
	// caller marks them consolidated.
	MemberIDs []string
	// SourceIDs is the sorted union of the member IDs and the members' own
	// SourceIDs: the schema's provenance.
	SourceIDs []string
	// SharedEntities are the entities the schema is about, by member count
	// descending, then name.
	SharedEntities []string
	// Statement is the representative statement.
	Statement string
	// RepresentativeID is the member whose text is Statement (offline), or
	// empty when a writer composed its own statement.
	RepresentativeID string
	// Summary is a one-line description of the schema.
	Summary string
	// From and To are the earliest and latest OccurredAt of the members.
	From, To time.Time
	// Confidence is the cluster's cohesion in [0, 1].
	Confidence float64
	// Writer names the writer that produced the schema.
	Writer string
	// Fallback is true when the configured writer failed and the offline
	// writer produced the schema instead.
	Fallback bool
}

// SchemaWriter turns a cluster into a schema. Implementations may call an
// LLM; [Extract] enforces provenance on whatever they return. Writers must
// honour ctx cancellation.
type SchemaWriter interface {
	// WriteSchema returns the schema for c.
	WriteSchema(ctx context.Context, c Cluster) (Schema, error)
}

// OfflineWriter is the default [SchemaWriter]; it needs no model.
type OfflineWriter struct {
	// SharedFraction is the share of members that must mention an entity
	// for it to be shared (and at least two members must). Defaults to
	// SharedFractionDefault.
	SharedFraction float64
}

// WriteSchema implements [SchemaWriter]: shared entities by member count,
// the medoid's text as the statement (the member with the highest total
// affinity to the others under the default affinity; ties go to the member
// mentioning more shared entities, then to the earlier one), the time span
// and the provenance union. An empty cluster is an error.
func (w OfflineWriter) WriteSchema(ctx context.Context, c Cluster) (Schema, error) {
	if err := ctx.Err(); err != nil {
		return Schema{}, err
	}
	if len(c.Members) == 0 {
		return Schema{}, errors.New("empty cluster")
	}
	frac := cmp.Or(w.SharedFraction, SharedFractionDefault)
	ms := slices.Clone(c.Members)
	sortEpisodes(ms)

	counts := map[string]int{}
	for _, m := range ms {
		seen := map[string]bool{}
		for _, e := range m.Entities {
			if e != "" && !seen[e] {
				seen[e] = true
				counts[e]++
			}
		}
	}
	need := max(2, int(math.Ceil(frac*float64(len(ms)))))
	var shared []string
	for e, n := range counts {
		if n >= need {
			shared = append(shared, e)
		}
	}
	slices.SortFunc(shared, func(a, b string) int {
		if d := cmp.Compare(counts[b], counts[a]); d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})

	cfg := (*ClusterConfig)(nil).WithDefaults()
	best, bestSum, bestShared := 0, math.Inf(-1), -1
	for i, m := range ms {
		sum := 0.0
		for j, o := range ms {
			if i == j {
				continue
			}
			a, err := affinity(m, o, cfg)
			if err != nil {
				return Schema{}, err
			}
			sum += a
		}
		ns := 0
		for _, e := range m.Entities {
			if slices.Contains(shared, e) {
				ns++
			}
		}
		if sum > bestSum || (sum == bestSum && ns > bestShared) {
			best, bestSum, bestShared = i, sum, ns
		}
	}
	s := Schema{
		SharedEntities:   shared,
		Statement:        strings.TrimSpace(ms[best].Text),
		RepresentativeID: ms[best].ID,
		Writer:           OfflineWriterName,
	}
	from, to := ms[0].OccurredAt, ms[len(ms)-1].OccurredAt
	about := ""
	if len(shared) > 0 {
		about = " about " + strings.Join(shared, ", ")
	}
	s.Summary = fmt.Sprintf("%d related episodes%s from %s to %s; representative: %s",
		len(ms), about, from.Format(time.DateOnly), to.Format(time.DateOnly), s.Statement)
	return s, nil
}

// Extract runs writer (nil: [OfflineWriter]) on c and then sets the fields
// that are facts rather than judgement from the cluster itself: MemberIDs,
// SourceIDs (the union), From, To and Confidence (the cohesion, clamped to
// [0, 1]). A writer that returns an empty statement gets the offline
// statement. Writer errors are returned wrapped.
func Extract(ctx context.Context, writer SchemaWriter, c Cluster) (Schema, error) {
	if len(c.Members) == 0 {
		return Schema{}, errors.New("error extracting schema: empty cluster")
	}
	if writer == nil {
		writer = OfflineWriter{}
	}
	s, err := writer.WriteSchema(ctx, c)
	if err != nil {
		return Schema{}, fmt.Errorf("error extracting schema: %w", err)
	}
	if strings.TrimSpace(s.Statement) == "" {
		off, err := OfflineWriter{}.WriteSchema(ctx, c)
		if err != nil {
			return Schema{}, fmt.Errorf("error extracting schema: %w", err)
		}
		s.Statement, s.RepresentativeID = off.Statement, off.RepresentativeID
	}
	ms := slices.Clone(c.Members)
	sortEpisodes(ms)
	s.MemberIDs = s.MemberIDs[:0:0]
	set := map[string]bool{}
	for _, m := range ms {
		s.MemberIDs = append(s.MemberIDs, m.ID)
		set[m.ID] = true
		for _, id := range m.SourceIDs {
			if id != "" {
				set[id] = true
			}
		}
	}
	s.SourceIDs = make([]string, 0, len(set))
	for id := range set {
		s.SourceIDs = append(s.SourceIDs, id)
	}
	slices.Sort(s.SourceIDs)
	s.From, s.To = ms[0].OccurredAt, ms[len(ms)-1].OccurredAt
	s.Confidence = min(1, max(0, c.Cohesion))
	if math.IsNaN(s.Confidence) {
		s.Confidence = 0
	}
	return s, nil
}

// Config configures [Consolidate].
type Config struct {
	// Cluster configures System 1; nil means defaults.
	Cluster *ClusterConfig
	// Writer is the System 2 writer; nil means OfflineWriter.
	Writer SchemaWriter
	// NoFallback makes a writer failure an error instead of falling back to
	// the offline writer for that cluster.
	NoFallback bool
}

// Consolidate runs System 1 and then System 2 on every cluster, in cluster
// order. When the writer fails on a cluster, the offline writer produces
// that schema with Fallback set (unless NoFallback). A cancelled ctx stops
// the run with ctx's error.
func Consolidate(ctx context.Context, episodes []Episode, cfg Config) ([]Schema, error) {
	clusters, err := ClusterEpisodes(episodes, cfg.Cluster)
	if err != nil {
		return nil, fmt.Errorf("error consolidating: %w", err)
	}
	out := make([]Schema, 0, len(clusters))
	for _, c := range clusters {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("error consolidating: %w", err)
		}
		s, err := Extract(ctx, cfg.Writer, c)
		if err != nil {
			if cfg.NoFallback || ctx.Err() != nil {
				return nil, fmt.Errorf("error consolidating: %w", err)
			}
			s, err = Extract(ctx, OfflineWriter{}, c)
			if err != nil {
				return nil, fmt.Errorf("error consolidating: %w", err)
			}
			s.Fallback = true
		}
		out = append(out, s)
	}
	return out, nil
}
