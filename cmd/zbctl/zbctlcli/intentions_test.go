package zbctlcli_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/internal/zbtest"
)

func TestIntentionsCommands(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ZB_DATABASE_URL": zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 64}), "ZB_TENANT": "pm"}

	r := run(t, env, "intentions", "add", "remind me to call mom tomorrow at 9")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "(time, medium): call mom — due ")

	r = run(t, env, "--json", "intentions", "add", "when I talk to Anna, ask about the trip")
	require.Zero(t, r.code, r.stderr)
	var cue struct {
		ID          int64    `json:"id"`
		Trigger     string   `json:"trigger"`
		CueEntities []string `json:"cue_entities"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &cue))
	require.Equal(t, "cue", cue.Trigger)
	require.Equal(t, []string{"Anna"}, cue.CueEntities)

	r = run(t, env, "intentions", "add", "--content", "send the slides", "--in", "90m", "--priority", "high")
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, "intentions", "add", "the weather is nice")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not an intention")
	r = run(t, env, "intentions", "add", "--content", "x", "--in", "soon")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not a positive duration")

	r = run(t, env, "intentions", "list")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "send the slides")
	require.Contains(t, r.stdout, "ask about the trip")

	// A recall that mentions Anna fires the cue intention.
	r = run(t, env, "store", "Anna booked the train to Lyon")
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, "recall", "what did Anna book?")
	require.Zero(t, r.code, r.stderr)
	r = run(t, env, "--json", "intentions", "list", "--status", "fired")
	require.Zero(t, r.code, r.stderr)
	var fired struct {
		Intentions []struct {
			ID          int64  `json:"id"`
			FiredReason string `json:"fired_reason"`
			FiredSource string `json:"fired_source"`
		} `json:"intentions"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fired))
	require.Len(t, fired.Intentions, 1)
	require.Equal(t, cue.ID, fired.Intentions[0].ID)
	require.Equal(t, "recall", fired.Intentions[0].FiredSource)

	r = run(t, env, "intentions", "dismiss", strconv.FormatInt(cue.ID, 10))
	require.Equal(t, 1, r.code, "a fired intention is final")
	require.Contains(t, r.stderr, "invalid intention state change")
	r = run(t, env, "intentions", "dismiss", strconv.FormatInt(cue.ID-1, 10))
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "dismissed intention")
	r = run(t, env, "intentions", "dismiss", "abc")
	require.Equal(t, 1, r.code)

	r = run(t, env, "--json", "intentions", "tick")
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, `"fired": []`)
}
