package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/zenbrain/zb/algorithms/prospective"
	"github.com/zenbrain/zb/algorithms/textproc"
	"github.com/zenbrain/zb/db"
)

// Limits and parameters of prospective memory [prospective].
const (
	// MaxPendingIntentions bounds a tenant's pending intentions: every stored and every
	// recalled text is matched against the pending cue intentions, so their number is capped.
	MaxPendingIntentions = 1000
	// MaxIntentionBytes bounds an intention's content, cue and each cue entity.
	MaxIntentionBytes = 2000
	// ProspectiveSurfaceWindow is how long after firing an intention is surfaced in Context
	// (the workspace's prospective module).
	ProspectiveSurfaceWindow = 24 * time.Hour
	// ProspectiveSurfaceMax bounds the fired intentions one Context offers.
	ProspectiveSurfaceMax = 10
	// ProspectiveTickLimitDefault is the limit of ProspectiveTick when the caller passes 0.
	ProspectiveTickLimitDefault = 1000
)

// ErrIntentionTransition is returned when an intention cannot make the asked state change
// (pending → fired | dismissed | expired and expired → dismissed are the only moves; fired and
// dismissed intentions are final).
var ErrIntentionTransition = fmt.Errorf("%w: invalid intention state change", ErrInvalidInput)

// ErrNotIntention is returned by AddIntention for text that the parser does not recognize as
// a reminder ("remind me to … tomorrow at 9", "when I talk to Anna, …", "erinnere mich …").
var ErrNotIntention = fmt.Errorf("%w: not an intention", ErrInvalidInput)

// IntentionInput creates an intention, either from text (parsed in English or German) or from
// explicit fields.
type IntentionInput struct {
	// Text is a reminder in natural language, parsed by algorithms/prospective when Content is
	// empty: "remind me to call mom tomorrow at 9", "erinnere mich in zwei Stunden an den Ofen",
	// "when I talk to Anna, ask about the trip". At most prospective.MaxParseBytes.
	Text string
	// Content is what to remind of; with it the trigger comes from DueAt or Cue/CueEntities.
	Content string
	// DueAt makes a time intention (fired by the worker's prospective_tick once due).
	DueAt *time.Time
	// Cue makes a cue intention: it fires when a stored or recalled text matches it by keyword
	// (all its content terms) or embedding (cosine ≥ 0.8).
	Cue string
	// CueEntities are entity names that fire the cue by entity ("Anna" matches "Anna Schmidt").
	CueEntities []string
	// Priority is "low", "medium" or "high". Empty means the parsed priority, else medium.
	Priority string
	// ExpiresAt is when a still pending intention expires. Nil means the parser's defaults: 7
	// days after DueAt for time intentions, 30 days after creation for cue intentions.
	ExpiresAt *time.Time
	// Context is the domain. Defaults to DefaultContext.
	Context string
	// MemoryID is an optional memory the intention comes from.
	MemoryID int64
	// Location is the time zone in which parsed times ("tomorrow at 9") are read. Nil means UTC.
	Location *time.Location
}

// Intention is a stored intention.
type Intention struct {
	// ID identifies it within the tenant.
	ID int64 `json:"id"`
	// Context is its domain.
	Context string `json:"context"`
	// Content is what to remind of.
	Content string `json:"content"`
	// Trigger is "time" or "cue".
	Trigger string `json:"trigger"`
	// DueAt is when a time intention is due.
	DueAt *time.Time `json:"due_at,omitempty"`
	// Cue and CueEntities describe a cue intention's cue.
	Cue         string   `json:"cue,omitempty"`
	CueEntities []string `json:"cue_entities,omitempty"`
	// Priority is "low", "medium" or "high".
	Priority string `json:"priority"`
	// Status is "pending", "fired", "dismissed" or "expired".
	Status string `json:"status"`
	// MemoryID is the memory it came from, if any.
	MemoryID *int64 `json:"memory_id,omitempty"`
	// CreatedAt, ExpiresAt, FiredAt and ResolvedAt are its times (ResolvedAt: when it left
	// pending).
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	FiredAt    *time.Time `json:"fired_at,omitempty"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	// FiredBy is the stored memory that fired a cue intention (nil for time and recall).
	FiredBy *int64 `json:"fired_by,omitempty"`
	// FiredReason is "time", "entity", "keyword" or "embedding"; FiredScore the matching
	// path's score; FiredSource "time", "store" or "recall".
	FiredReason string   `json:"fired_reason,omitempty"`
	FiredScore  *float64 `json:"fired_score,omitempty"`
	FiredSource string   `json:"fired_source,omitempty"`
}

func parsePriority(s string) (prospective.Priority, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "low":
		return prospective.PriorityLow, nil
	case "medium", "":
		return prospective.PriorityMedium, nil
	case "high":
		return prospective.PriorityHigh, nil
	}
	return 0, fmt.Errorf("%w: priority %q (low, medium or high)", ErrInvalidInput, truncate(s, 20))
}

func intentionFromRow(r db.ProspectiveListRow) Intention {
	in := Intention{
		ID: r.ID, Context: r.Context, Content: r.Content, Trigger: r.TriggerKind, DueAt: r.DueAt,
		CueEntities: r.CueEntities, Priority: prospective.Priority(r.Priority).String(), Status: r.Status,
		MemoryID: r.MemoryID, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, FiredAt: r.FiredAt, ResolvedAt: r.ResolvedAt,
		FiredBy: r.FiredBy, FiredScore: r.FiredScore,
	}
	if r.Cue != nil {
		in.Cue = *r.Cue
	}
	if r.FiredReason != nil {
		in.FiredReason = *r.FiredReason
	}
	if r.FiredSource != nil {
		in.FiredSource = *r.FiredSource
	}
	return in
}

// buildIntention validates in and turns it into a pending prospective.Intention at now.
func buildIntention(in IntentionInput, now time.Time) (prospective.Intention, error) {
	if in.Content == "" {
		if strings.TrimSpace(in.Text) == "" {
			return prospective.Intention{}, fmt.Errorf("%w: an intention needs Text or Content", ErrEmptyContent)
		}
		if err := checkText(in.Text, prospective.MaxParseBytes); err != nil {
			return prospective.Intention{}, err
		}
		if in.DueAt != nil || in.Cue != "" || len(in.CueEntities) > 0 {
			return prospective.Intention{}, fmt.Errorf("%w: Text is parsed; give DueAt or a cue only with Content", ErrInvalidInput)
		}
		loc := in.Location
		if loc == nil {
			loc = time.UTC
		}
		p, err := prospective.Parse(in.Text, now.In(loc))
		switch {
		case errors.Is(err, prospective.ErrNotIntention):
			return prospective.Intention{}, fmt.Errorf("%w: %w", ErrNotIntention, err)
		case err != nil:
			return prospective.Intention{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
		}
		if in.Priority != "" {
			if p.Priority, err = parsePriority(in.Priority); err != nil {
				return prospective.Intention{}, err
			}
		}
		if in.ExpiresAt != nil {
			p.ExpiresAt = *in.ExpiresAt
		}
		if err := p.Validate(); err != nil {
			return prospective.Intention{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
		}
		return p, nil
	}
	if in.Text != "" {
		return prospective.Intention{}, fmt.Errorf("%w: give either Text or Content, not both", ErrInvalidInput)
	}
	if err := checkText(in.Content, MaxIntentionBytes); err != nil {
		return prospective.Intention{}, err
	}
	prio, err := parsePriority(in.Priority)
	if err != nil {
		return prospective.Intention{}, err
	}
	p := prospective.Intention{Content: strings.TrimSpace(in.Content), Status: prospective.StatusPending, Priority: prio, CreatedAt: now}
	hasCue := strings.TrimSpace(in.Cue) != "" || len(in.CueEntities) > 0
	switch {
	case in.DueAt != nil && hasCue:
		return prospective.Intention{}, fmt.Errorf("%w: an intention has one trigger: DueAt or a cue, not both", ErrInvalidInput)
	case in.DueAt != nil:
		if !in.DueAt.After(now) {
			return prospective.Intention{}, fmt.Errorf("%w: due time %s is not after now %s", ErrInvalidInput,
				in.DueAt.Format(time.RFC3339), now.Format(time.RFC3339))
		}
		p.Trigger, p.DueAt = prospective.TriggerTime, *in.DueAt
		p.ExpiresAt = in.DueAt.Add(prospective.TimeGraceDefault)
	case hasCue:
		if in.Cue != "" {
			if err := checkText(in.Cue, MaxIntentionBytes); err != nil {
				return prospective.Intention{}, fmt.Errorf("cue: %w", err)
			}
		}
		for _, e := range in.CueEntities {
			if err := checkText(e, MaxIntentionBytes); err != nil {
				return prospective.Intention{}, fmt.Errorf("cue entity: %w", err)
			}
		}
		p.Trigger, p.Cue, p.CueEntities = prospective.TriggerCue, strings.TrimSpace(in.Cue), in.CueEntities
		p.ExpiresAt = now.Add(prospective.CueTTLDefault)
	default:
		return prospective.Intention{}, fmt.Errorf("%w: an intention with Content needs DueAt, Cue or CueEntities", ErrInvalidInput)
	}
	if in.ExpiresAt != nil {
		p.ExpiresAt = *in.ExpiresAt
	}
	if err := p.Validate(); err != nil {
		return prospective.Intention{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	return p, nil
}

// AddIntention creates a pending intention for tenant (creating the tenant if needed) from
// in.Text, parsed by algorithms/prospective (English and German; ErrNotIntention when no form
// matches), or from explicit fields. A cue is embedded with Config.Embedder for the embedding
// match. At most MaxPendingIntentions may be pending per tenant (ErrInvalidInput beyond). An
// audit event "intention.add" is written in the same transaction. Intentions can be created
// while prospective memory is switched off; they fire only while it is on.
func (c *Coordinator) AddIntention(ctx context.Context, tenant string, in IntentionInput) (*Intention, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	cx := in.Context
	if cx == "" {
		cx = DefaultContext
	}
	if err := checkContext(cx); err != nil {
		return nil, err
	}
	if in.MemoryID < 0 {
		return nil, fmt.Errorf("%w: memory id must not be negative, got %d", ErrInvalidInput, in.MemoryID)
	}
	now := c.clock.Now()
	p, err := buildIntention(in, now)
	if err != nil {
		return nil, err
	}
	var emb []float32
	if p.Trigger == prospective.TriggerCue && p.Cue != "" && c.cfg.Embedder != nil {
		dim, err := c.embeddingDim(ctx)
		if err != nil {
			return nil, err
		}
		vs, err := c.cfg.Embedder.Embed(ctx, []string{p.Cue})
		if err != nil {
			return nil, fmt.Errorf("error embedding cue: %w", err)
		}
		if len(vs) == 1 && checkEmbedding(vs[0], dim) == nil {
			emb = vs[0]
		}
	}
	params := db.ProspectiveInsertParams{
		TenantID: tenant, Context: cx, Content: p.Content, TriggerKind: string(p.Trigger),
		CueEmbedding: toVector(emb), Now: now, Priority: int16(p.Priority), CueEntities: nonNil(p.CueEntities),
	}
	if p.Trigger == prospective.TriggerTime {
		params.DueAt = &p.DueAt
	}
	if p.Cue != "" {
		params.Cue = &p.Cue
	} else if p.Trigger == prospective.TriggerCue {
		cue := strings.Join(p.CueEntities, ", ")
		params.Cue = &cue // the table requires a cue text; entity cues use their names
	}
	if !p.ExpiresAt.IsZero() {
		params.ExpiresAt = &p.ExpiresAt
	}
	if in.MemoryID > 0 {
		params.MemoryID = &in.MemoryID
	}
	lang := p.Lang
	if lang == "" && p.Cue != "" {
		lang = textproc.DetectLang(p.Cue)
	}
	if lang == textproc.English || lang == textproc.German {
		l := string(lang)
		params.Lang = &l
	}
	var out *Intention
	err = c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		if err := q.TenantEnsure(ctx, db.TenantEnsureParams{ID: tenant, Name: tenant}); err != nil {
			return err
		}
		n, err := q.ProspectiveCountPending(ctx, tenant)
		if err != nil {
			return err
		}
		if n >= MaxPendingIntentions {
			return fmt.Errorf("%w: tenant %s already has %d pending intentions (limit %d)", ErrInvalidInput, tenant, n, MaxPendingIntentions)
		}
		id, err := q.ProspectiveInsert(ctx, params)
		if err != nil {
			return err
		}
		if err := c.audit(ctx, q, tenant, "intention.add", params.MemoryID, now, map[string]any{
			"intention_id": id,
			"trigger":      p.Trigger, "priority": p.Priority.String(),
		}); err != nil {
			return err
		}
		out, err = c.intention(ctx, q, tenant, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrInvalidInput) {
			return nil, err
		}
		return nil, interpretError("adding intention", err)
	}
	return out, nil
}

func (c *Coordinator) intention(ctx context.Context, q *db.Queries, tenant string, id int64) (*Intention, error) {
	r, err := q.ProspectiveGet(ctx, db.ProspectiveGetParams{TenantID: tenant, ID: id})
	if err != nil {
		return nil, interpretError(fmt.Sprintf("reading intention %d", id), err)
	}
	in := intentionFromRow(db.ProspectiveListRow(r))
	return &in, nil
}

// Intentions returns a tenant's intentions, newest first: all, or those of one status
// ("pending", "fired", "dismissed", "expired"); at most limit (0 means 100, at most
// MaxLifecycleLimit).
func (c *Coordinator) Intentions(ctx context.Context, tenant, status string, limit int) ([]Intention, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	var st *string
	if status != "" {
		if !prospective.Status(status).Valid() {
			return nil, fmt.Errorf("%w: status %q (pending, fired, dismissed or expired)", ErrInvalidInput, truncate(status, 20))
		}
		st = &status
	}
	k, err := checkLimit(limit, 100)
	if err != nil {
		return nil, err
	}
	rows, err := tenantRead(ctx, c, tenant, func(q *db.Queries) ([]db.ProspectiveListRow, error) {
		return q.ProspectiveList(ctx, db.ProspectiveListParams{TenantID: tenant, Status: st, K: int32(k)})
	})
	if err != nil {
		return nil, interpretError("listing intentions", err)
	}
	out := make([]Intention, len(rows))
	for i, r := range rows {
		out[i] = intentionFromRow(r)
	}
	return out, nil
}

// DismissIntention dismisses a pending or expired intention and writes an audit event
// "intention.dismiss". An unknown id gives ErrNotFound; a fired or dismissed one gives
// ErrIntentionTransition.
func (c *Coordinator) DismissIntention(ctx context.Context, tenant string, id int64) (*Intention, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	if id <= 0 {
		return nil, fmt.Errorf("%w: intention id must be positive, got %d", ErrInvalidInput, id)
	}
	now := c.clock.Now()
	var out *Intention
	err := c.beginTenant(ctx, tenant, func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		n, err := q.ProspectiveDismiss(ctx, db.ProspectiveDismissParams{TenantID: tenant, ID: id, Now: now})
		if err != nil {
			return err
		}
		cur, err := c.intention(ctx, q, tenant, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: intention %d is %s", ErrIntentionTransition, id, cur.Status)
		}
		out = cur
		return c.audit(ctx, q, tenant, "intention.dismiss", nil, now, map[string]any{"intention_id": id})
	})
	if err != nil {
		if errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrNotFound) {
			return nil, err
		}
		return nil, interpretError(fmt.Sprintf("dismissing intention %d", id), err)
	}
	return out, nil
}

// FiredIntention is an intention fired by a time or cue trigger.
type FiredIntention struct {
	// TenantID and ID identify the intention.
	TenantID string `json:"tenant_id"`
	ID       int64  `json:"id"`
	// Content is what it reminds of.
	Content string `json:"content"`
	// Reason is "time", "entity", "keyword" or "embedding"; Score the matching path's score
	// (1 for time); Source "time", "store" or "recall".
	Reason string  `json:"reason"`
	Score  float64 `json:"score"`
	Source string  `json:"source"`
	// FiredBy is the stored memory that matched the cue (store triggers only).
	FiredBy *int64 `json:"fired_by,omitempty"`
}

// cueSource is a text that may match cue intentions: a stored memory or a recall query.
type cueSource struct {
	text      string
	embedding []float32
	source    string // "store" or "recall"
	memoryID  *int64
	at        time.Time // when the text came about; older intentions only
}

// fireCues matches each source, in order, against the tenant's pending cue intentions
// (prospective.MatchCue: by entity — names extracted with ExtractEntities —, keyword or
// embedding) and fires those it matches; an intention fires once, for the first source that
// matches it. Intentions created after a source came about are not matched against it.
func (c *Coordinator) fireCues(ctx context.Context, q *db.Queries, tenant string, now time.Time, srcs ...cueSource) ([]FiredIntention, error) {
	rows, err := q.ProspectivePendingCues(ctx, db.ProspectivePendingCuesParams{TenantID: tenant, Now: now, K: MaxPendingIntentions})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var fired []FiredIntention
	done := map[int64]bool{}
	for _, src := range srcs {
		fs, err := c.fireCuesOf(ctx, q, tenant, rows, done, src, now)
		if err != nil {
			return nil, err
		}
		fired = append(fired, fs...)
	}
	return fired, nil
}

func (c *Coordinator) fireCuesOf(ctx context.Context, q *db.Queries, tenant string, rows []db.ProspectivePendingCuesRow,
	done map[int64]bool, src cueSource, now time.Time,
) ([]FiredIntention, error) {
	var names []string
	for _, e := range ExtractEntities(src.text) {
		names = append(names, e.Name)
	}
	var fired []FiredIntention
	for _, r := range rows {
		if done[r.ID] || r.CreatedAt.After(src.at) {
			continue
		}
		in := prospective.Intention{
			ID: fmt.Sprint(r.ID), Content: r.Content, Trigger: prospective.TriggerCue,
			CueEntities: r.CueEntities, Status: prospective.StatusPending, Priority: prospective.Priority(r.Priority),
			CreatedAt: r.CreatedAt,
		}
		if r.Cue != nil {
			in.Cue = *r.Cue
		}
		if r.Lang != nil {
			in.Lang = textproc.Lang(*r.Lang)
		}
		if r.ExpiresAt != nil {
			in.ExpiresAt = *r.ExpiresAt
		}
		emb := src.embedding
		if r.CueEmbedding != nil {
			if ce := r.CueEmbedding.Slice(); len(ce) == len(emb) {
				in.CueEmbedding = ce
			}
		}
		if len(in.CueEmbedding) == 0 {
			emb = nil
		}
		m, err := prospective.MatchCue(in, src.text, names, emb, nil)
		if err != nil || !m.Matched {
			continue // an intention the pure package rejects is never fired
		}
		if _, err := prospective.Fire(in, now); err != nil {
			continue
		}
		f, err := c.fire(ctx, q, tenant, r.ID, r.Content, string(m.Reason), m.Score, src.source, src.memoryID, now)
		if err != nil {
			return nil, err
		}
		done[r.ID] = true
		if f != nil {
			fired = append(fired, *f)
		}
	}
	return fired, nil
}

// fire marks one pending intention fired and audits it; nil when it was no longer pending.
func (c *Coordinator) fire(ctx context.Context, q *db.Queries, tenant string, id int64, content, reason string, score float64,
	source string, by *int64, now time.Time,
) (*FiredIntention, error) {
	score = lcClamp(score, -1, 1)
	n, err := q.ProspectiveFire(ctx, db.ProspectiveFireParams{
		TenantID: tenant, ID: id, Now: now, FiredBy: by,
		FiredReason: reason, FiredScore: score, FiredSource: source,
	})
	if err != nil || n == 0 {
		return nil, err
	}
	f := &FiredIntention{TenantID: tenant, ID: id, Content: content, Reason: reason, Score: score, Source: source, FiredBy: by}
	return f, c.audit(ctx, q, tenant, "intention.fire", by, now, f)
}

// ProspectiveTickReport is what one ProspectiveTick did.
type ProspectiveTickReport struct {
	// Fired lists the time intentions fired, in firing order (priority, then due time).
	Fired []FiredIntention `json:"fired"`
	// Expired counts pending intentions that expired.
	Expired int `json:"expired"`
	// More reports that more due intentions were left for the next tick.
	More bool `json:"more"`
}

// ProspectiveTick is the worker's periodic prospective_tick over all tenants, in one
// transaction with hook: it fires up to limit due time intentions (0 means
// ProspectiveTickLimitDefault) of tenants with prospective memory on — ordered by
// prospective.DueByTime (priority, then due time) and each checked by prospective.Fire —, then
// marks up to limit pending intentions whose expiry has come as expired. Rows another tick holds
// are skipped, so concurrent workers never fire an intention twice.
func (c *Coordinator) ProspectiveTick(ctx context.Context, limit int, hook TxHook) (*ProspectiveTickReport, error) {
	k, err := checkLimit(limit, ProspectiveTickLimitDefault)
	if err != nil {
		return nil, err
	}
	now := c.clock.Now()
	rep := &ProspectiveTickReport{Fired: []FiredIntention{}}
	// Unbound to a tenant: a sweep over all tenants, which needs an operator role (zb_worker).
	err = c.beginTenant(ctx, "", func(tx pgx.Tx) error {
		q := c.q.WithTx(tx)
		rows, err := q.ProspectiveDueTime(ctx, db.ProspectiveDueTimeParams{Now: now, K: int32(k + 1)})
		if err != nil {
			return err
		}
		if len(rows) > k {
			rows, rep.More = rows[:k], true
		}
		byKey := map[string]db.ProspectiveDueTimeRow{}
		ins := make([]prospective.Intention, 0, len(rows))
		for _, r := range rows {
			key := r.TenantID + "/" + fmt.Sprint(r.ID)
			byKey[key] = r
			in := prospective.Intention{
				ID: key, Content: r.Content, Trigger: prospective.TriggerTime,
				Status: prospective.StatusPending, Priority: prospective.Priority(r.Priority), CreatedAt: r.CreatedAt,
			}
			if r.DueAt != nil {
				in.DueAt = *r.DueAt
			}
			if r.ExpiresAt != nil {
				in.ExpiresAt = *r.ExpiresAt
			}
			ins = append(ins, in)
		}
		for _, in := range prospective.DueByTime(ins, now) {
			if _, err := prospective.Fire(in, now); err != nil {
				continue
			}
			r := byKey[in.ID]
			f, err := c.fire(ctx, q, r.TenantID, r.ID, r.Content, "time", 1, "time", nil, now)
			if err != nil {
				return err
			}
			if f != nil {
				rep.Fired = append(rep.Fired, *f)
			}
		}
		exp, err := q.ProspectiveExpire(ctx, db.ProspectiveExpireParams{Now: now, K: int32(k)})
		if err != nil {
			return err
		}
		rep.Expired = len(exp)
		for _, e := range exp {
			if err := c.audit(ctx, q, e.TenantID, "intention.expire", nil, now, map[string]any{"intention_id": e.ID}); err != nil {
				return err
			}
		}
		if hook != nil {
			if err := hook(ctx, tx); err != nil {
				return fmt.Errorf("error in transaction hook: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, interpretError("running the prospective tick", err)
	}
	return rep, nil
}
