package locomo

import (
	"fmt"
	"time"
)

// Mode is a benchmark protocol.
type Mode string

// The protocols of SOURCE.md.
const (
	// PerConversation isolates each conversation in its own tenant (named
	// after its sample_id).
	PerConversation Mode = "per-conversation"
	// SharedPool puts all turns of all conversations into the one tenant
	// [PoolTenant], with dia_ids namespaced by conversation.
	SharedPool Mode = "shared-pool"
	// Both runs [PerConversation] and then [SharedPool]. It is accepted by
	// [Run] only, not by [BuildPlan].
	Both Mode = "both"
)

// PoolTenant is the tenant of the [SharedPool] protocol.
const PoolTenant = "locomo-pool"

// Modes returns the protocols m stands for, in run order: [Both] gives
// [PerConversation] then [SharedPool]; an unknown mode gives an error.
func (m Mode) Modes() ([]Mode, error) {
	switch m {
	case PerConversation, SharedPool:
		return []Mode{m}, nil
	case Both:
		return []Mode{PerConversation, SharedPool}, nil
	default:
		return nil, fmt.Errorf("error expanding mode %q: want %q, %q or %q", string(m), PerConversation, SharedPool, Both)
	}
}

// Message is one turn as handed to a [System].
type Message struct {
	// TenantID is the tenant the message belongs to.
	TenantID string `json:"tenant_id"`
	// SessionKey names the conversation session: "session_<N>" in
	// [PerConversation] mode, "<sample_id>/session_<N>" in [SharedPool] mode.
	SessionKey string `json:"session_key"`
	// DiaID is the source id a system must keep on the memory (and on every
	// memory derived from it): the turn's dia_id, namespaced as
	// "<sample_id>/<dia_id>" in [SharedPool] mode.
	DiaID string `json:"dia_id"`
	// Speaker is the speaker's name.
	Speaker string `json:"speaker"`
	// Text is the content to store, built by [MessageText].
	Text string `json:"text"`
	// OccurredAt is the session's date plus i seconds for the session's i-th
	// turn, counting from 0.
	OccurredAt time.Time `json:"occurred_at"`
}

// Query is one question asked of a tenant.
type Query struct {
	// Conversation is the question's sample_id.
	Conversation string `json:"conversation"`
	// Index is the question's position in the conversation's qa list.
	Index int `json:"index"`
	// Category is the question's category (1..5).
	Category int `json:"category"`
	// Text is the question, used verbatim as the search query.
	Text string `json:"text"`
	// Evidence is the cleaned evidence, namespaced like [Message.DiaID].
	// It is never empty: questions without evidence are not planned.
	Evidence []string `json:"evidence"`
	// EvidenceText holds the text of each evidence turn (the turn's own text, without speaker
	// or caption): EvidenceText[i] belongs to Evidence[i]. Budget credits look for it in what
	// was delivered.
	EvidenceText []string `json:"evidence_text"`
}

// TenantPlan is the work for one tenant: ingest Messages, call the lifecycle
// hook at Now, then ask the Queries at Now.
type TenantPlan struct {
	// Tenant is the tenant id.
	Tenant string `json:"tenant"`
	// Messages are the turns in ingest order.
	Messages []Message `json:"messages"`
	// Now is the query time: [Conversation.QueryTime] of the tenant's
	// conversation, or the latest one over all conversations in the pool.
	Now time.Time `json:"now"`
	// Queries are the scored questions (non-empty evidence) in file order.
	Queries []Query `json:"queries"`
}

// MessageText returns the text a turn is stored as:
// "<speaker>: <text>", followed by " [shares image: <blip_caption>]" when the
// turn has a caption.
func MessageText(t Turn) string {
	s := t.Speaker + ": " + t.Text
	if t.BlipCaption != "" {
		s += " [shares image: " + t.BlipCaption + "]"
	}
	return s
}

// NamespacedID returns the shared-pool source id of a dia_id:
// "<sample_id>/<dia_id>".
func NamespacedID(sampleID, diaID string) string { return sampleID + "/" + diaID }

// BuildPlan returns the tenants of ds under mode ([PerConversation] or
// [SharedPool]): one per conversation in file order, or the single
// [PoolTenant]. See the package documentation for the protocol.
func BuildPlan(ds *Dataset, mode Mode) ([]TenantPlan, error) {
	if ds == nil || len(ds.Conversations) == 0 {
		return nil, fmt.Errorf("error building plan: %w", ErrNoData)
	}
	switch mode {
	case PerConversation:
		plans := make([]TenantPlan, 0, len(ds.Conversations))
		for i := range ds.Conversations {
			c := &ds.Conversations[i]
			p := TenantPlan{Tenant: c.SampleID, Now: c.QueryTime()}
			appendConversation(&p, c, false)
			plans = append(plans, p)
		}
		return plans, nil
	case SharedPool:
		p := TenantPlan{Tenant: PoolTenant}
		for i := range ds.Conversations {
			c := &ds.Conversations[i]
			if d := c.QueryTime(); d.After(p.Now) {
				p.Now = d
			}
			appendConversation(&p, c, true)
		}
		return []TenantPlan{p}, nil
	default:
		return nil, fmt.Errorf("error building plan: mode %q: want %q or %q", string(mode), PerConversation, SharedPool)
	}
}

// appendConversation adds c's messages and scored queries to p.
func appendConversation(p *TenantPlan, c *Conversation, pooled bool) {
	ns := func(id string) string {
		if pooled {
			return NamespacedID(c.SampleID, id)
		}
		return id
	}
	texts := map[string]string{}
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			texts[t.DiaID] = t.Text
		}
	}
	for _, s := range c.Sessions {
		key := fmt.Sprintf("session_%d", s.Number)
		if pooled {
			key = c.SampleID + "/" + key
		}
		for i, t := range s.Turns {
			p.Messages = append(p.Messages, Message{
				TenantID:   p.Tenant,
				SessionKey: key,
				DiaID:      ns(t.DiaID),
				Speaker:    t.Speaker,
				Text:       MessageText(t),
				OccurredAt: s.Date.Add(time.Duration(i) * time.Second),
			})
		}
	}
	for _, q := range c.Questions {
		if len(q.Evidence) == 0 {
			continue
		}
		ev := make([]string, len(q.Evidence))
		evText := make([]string, len(q.Evidence))
		for i, id := range q.Evidence {
			ev[i] = ns(id)
			evText[i] = texts[id]
		}
		p.Queries = append(p.Queries, Query{
			Conversation: c.SampleID, Index: q.Index, Category: q.Category, Text: q.Text,
			Evidence: ev, EvidenceText: evText,
		})
	}
}
