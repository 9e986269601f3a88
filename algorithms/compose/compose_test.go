package compose

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fixture: the user asks in "work" about Anna. Anna is also known in
// "personal" (linked) and in "health" (linked, but work may not read
// health). "finance" is readable but has nothing linked.
func fixture() Request {
	return Request{
		Target:        "work",
		QueryEntities: []string{"anna"},
		Memories: []Memory{
			{ID: "w1", Context: "work", Text: "Anna leads the Q3 launch project", Score: 0.9, Entities: []string{"anna", "q3-launch"}},
			{ID: "w2", Context: "work", Text: "The Q3 launch is due on 30 September", Score: 0.7, Entities: []string{"q3-launch"}},
			{ID: "p1", Context: "personal", Text: "Anna is my sister and lives in Munich", Score: 0.8, Entities: []string{"anna-k"}},
			{ID: "p2", Context: "personal", Text: "Anna's birthday is on 3 May", Score: 0.6, Entities: []string{"anna-k"}},
			{ID: "p3", Context: "personal", Text: "Anna likes climbing", Score: 0.5, Entities: []string{"anna-k"}},
			{ID: "p4", Context: "personal", Text: "Bought a new bike", Score: 0.95, Entities: []string{"bike"}},
			{ID: "h1", Context: "health", Text: "Anna's diagnosis from the clinic", Score: 0.99, Entities: []string{"anna-h"}},
			{ID: "f1", Context: "finance", Text: "Quarterly budget review", Score: 0.4, Entities: []string{"budget"}},
			{ID: "l1", Context: "learning", Text: "Anna recommended a Go course", Score: 0.3, Entities: []string{"anna-l"}},
		},
		Links: []Link{
			{A: EntityRef{"work", "anna"}, B: EntityRef{"personal", "anna-k"}},
			{A: EntityRef{"personal", "anna-k"}, B: EntityRef{"health", "anna-h"}},
			{A: EntityRef{"personal", "anna-k"}, B: EntityRef{"learning", "anna-l"}},
		},
		Policy: NewPolicy(
			Grant{Reader: "work", Source: "personal"},
			Grant{Reader: "work", Source: "finance"},
			Grant{Reader: "work", Source: "learning"},
			Grant{Reader: "health", Source: "work"},
		),
	}
}

func TestCompose(t *testing.T) {
	t.Parallel()
	got, err := Compose(fixture(), nil)
	require.NoError(t, err)
	require.Len(t, got.Sections, 3)

	home := got.Sections[0]
	require.Equal(t, SectionHome, home.Kind)
	require.Equal(t, "work", home.Context)
	require.Equal(t, []string{"w1", "w2"}, itemIDs(home))

	// personal: p1 and p2 (linked via anna; p3 cut by MaxPerContext 2; p4
	// has no linked entity), scores discounted by 0.5.
	personal := got.Sections[1]
	require.Equal(t, SectionCross, personal.Kind)
	require.Equal(t, "personal", personal.Context)
	require.Equal(t, []string{"p1", "p2"}, itemIDs(personal))
	require.InDelta(t, 0.4, personal.Items[0].Score, 1e-12)
	require.Equal(t, []string{"anna"}, personal.Items[0].Via)

	// learning is reached transitively (work:anna ~ personal:anna-k ~
	// learning:anna-l) through readable contexts only.
	require.Equal(t, "learning", got.Sections[2].Context)
	require.Equal(t, []string{"l1"}, itemIDs(got.Sections[2]))

	// health is never shown, though linked and highest-scored.
	require.Equal(t, 1, got.Denied)
	require.Equal(t, 2, got.Unlinked) // p4 and f1
	require.NotContains(t, got.Render(), "diagnosis")
}

func TestComposePolicyIsEnforced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		policy   Policy
		contexts []string
		denied   int
	}{
		{"no grants: home only", NewPolicy(), []string{"work"}, 7},
		{"grants are directed", NewPolicy(Grant{Reader: "personal", Source: "work"}), []string{"work"}, 7},
		{"personal only", NewPolicy(Grant{Reader: "work", Source: "personal"}), []string{"work", "personal"}, 3},
		{"learning without personal: link chain broken", NewPolicy(Grant{Reader: "work", Source: "learning"}), []string{"work"}, 6},
		{"health granted", NewPolicy(Grant{Reader: "work", Source: "health"}, Grant{Reader: "work", Source: "personal"}), []string{"work", "health", "personal"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := fixture()
			req.Policy = tt.policy
			got, err := Compose(req, nil)
			require.NoError(t, err)
			var ctxs []string
			for _, s := range got.Sections {
				ctxs = append(ctxs, s.Context)
				for _, it := range s.Items {
					require.True(t, tt.policy.Allows("work", it.Memory.Context), "item %s from unreadable context", it.Memory.ID)
				}
			}
			require.Equal(t, tt.contexts, ctxs)
			require.Equal(t, tt.denied, got.Denied)
		})
	}
}

func TestComposeAnchorsFromHomeMemories(t *testing.T) {
	t.Parallel()
	// No query entities: anchors come from the home memories' entities.
	req := fixture()
	req.QueryEntities = nil
	got, err := Compose(req, &Config{MaxPerContext: -1})
	require.NoError(t, err)
	require.Equal(t, []string{"p1", "p2", "p3"}, itemIDs(got.Sections[1]))

	// With MaxHome 1 only w1 is home; its entity anna still anchors.
	got, err = Compose(req, &Config{MaxHome: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"w1"}, itemIDs(got.Sections[0]))
	require.Equal(t, "personal", got.Sections[1].Context)

	// Without home memories and query entities nothing can be linked.
	req.Memories = req.Memories[2:]
	got, err = Compose(req, nil)
	require.NoError(t, err)
	require.Empty(t, got.Sections)
	require.Empty(t, got.Render())
}

func TestComposeIsOrderIndependent(t *testing.T) {
	t.Parallel()
	a, err := Compose(fixture(), nil)
	require.NoError(t, err)
	req := fixture()
	for i, j := 0, len(req.Memories)-1; i < j; i, j = i+1, j-1 {
		req.Memories[i], req.Memories[j] = req.Memories[j], req.Memories[i]
	}
	for i, j := 0, len(req.Links)-1; i < j; i, j = i+1, j-1 {
		req.Links[i], req.Links[j] = req.Links[j], req.Links[i]
	}
	b, err := Compose(req, nil)
	require.NoError(t, err)
	require.Equal(t, a, b)
}

func TestComposeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mut  func(*Request)
		cfg  *Config
		msg  string
	}{
		{"empty target", func(r *Request) { r.Target = "" }, nil, "empty target"},
		{"empty id", func(r *Request) { r.Memories[0].ID = "" }, nil, "empty ID"},
		{"empty context", func(r *Request) { r.Memories[0].Context = "" }, nil, "empty ID or context"},
		{"duplicate", func(r *Request) { r.Memories[1].ID = r.Memories[0].ID }, nil, "duplicate memory"},
		{"NaN score", func(r *Request) { r.Memories[0].Score = math.NaN() }, nil, "score NaN"},
		{"bad discount", func(*Request) {}, &Config{CrossDiscount: 1.5}, "CrossDiscount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := fixture()
			tt.mut(&req)
			_, err := Compose(req, tt.cfg)
			require.ErrorContains(t, err, tt.msg)
		})
	}
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	got, err := Compose(fixture(), nil)
	require.NoError(t, err)
	path := filepath.Join("testdata", "render.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got.Render()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got.Render())
	require.True(t, strings.HasPrefix(got.Render(), "## work\n"))
}

func itemIDs(s Section) []string {
	out := make([]string, len(s.Items))
	for i, it := range s.Items {
		out[i] = it.Memory.ID
	}
	return out
}
