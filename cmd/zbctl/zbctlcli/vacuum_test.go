package zbctlcli_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
	"github.com/zenbrain/zb/internal/zbtest"
)

// zbctl forget names the vacuum request its erase queued (text and --json); 'zbctl vacuum
// --status' lists it pending; 'zbctl vacuum' runs it and says what it did; a second run finds
// nothing pending.
func TestVacuum(t *testing.T) {
	t.Parallel()
	u := zbtest.DB(t, &zbtest.Opts{EmbeddingDim: 64})
	env := map[string]string{"ZB_DATABASE_URL": u, "ZB_TENANT": "cli"}

	require.Equal(t, "no vacuum requests (no erase has removed anything)\n", ok(t, env, "vacuum", "--status"))
	require.Equal(t, "nothing pending\n", ok(t, env, "vacuum"))

	ok(t, env, "store", "--context", "health", "Dana takes 20 mg of citalopram.")
	ok(t, env, "store", "--context", "health", "Dana's therapist is Dr. Ilse Brandt.")
	ok(t, env, "store", "--context", "billing", "Dana's IBAN ends in 4711.")
	out := ok(t, env, "forget", "--dry-run", "--context", "health")
	require.NotContains(t, out, "vacuum request", "a dry run queues nothing")
	out = ok(t, env, "forget", "--context", "health")
	m := regexp.MustCompile(`physical cleanup \(old row versions, planner statistics\) is queued as vacuum request (\d+): 'zbctl vacuum --status' shows it`).
		FindStringSubmatch(out)
	require.NotNil(t, m, out)
	id, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)

	var forgot struct {
		Report coordinator.EraseReport `json:"report"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "forget", "--context", "billing")), &forgot))
	require.Equal(t, id, forgot.Report.VacuumRequest, "the second erase shares the pending request")
	require.NotContains(t, forgot.Report.Counts, "vacuum_request")

	out = ok(t, env, "vacuum", "--status")
	require.Regexp(t, `(?m)^ID\s+STATE\s+REQUESTED\s+STARTED\s+DONE\s+TABLES$`, out)
	require.Regexp(t, `(?m)^`+m[1]+`\s+pending\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+-\s+-\s+-$`, out)
	require.Contains(t, out, "1 not done: the worker runs them (zbworker --vacuum-interval)")

	var status struct {
		Requests []coordinator.VacuumRequest `json:"requests"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "vacuum", "--status")), &status))
	require.Len(t, status.Requests, 1)
	require.Equal(t, id, status.Requests[0].ID)
	require.Equal(t, coordinator.VacuumStatePending, status.Requests[0].State)
	require.Nil(t, status.Requests[0].DoneAt)

	out = ok(t, env, "vacuum")
	require.Regexp(t, `^vacuumed \d+ tables for 1 erase request \(ids `+m[1]+`\) in \S+\n$`, out)
	require.Equal(t, "nothing pending\n", ok(t, env, "vacuum"))

	var run struct {
		Requests []int64  `json:"requests"`
		Tables   []string `json:"tables"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "vacuum")), &run))
	require.Empty(t, run.Requests)
	require.Empty(t, run.Tables)

	require.NoError(t, json.Unmarshal([]byte(ok(t, env, "--json", "vacuum", "--status", "--limit", "5")), &status))
	require.Len(t, status.Requests, 1)
	require.Equal(t, coordinator.VacuumStateDone, status.Requests[0].State)
	require.NotNil(t, status.Requests[0].DoneAt)
	require.Positive(t, status.Requests[0].Tables)
	out = ok(t, env, "vacuum", "--status")
	require.Regexp(t, `(?m)^`+m[1]+`\s+done\s+`, out)
	require.NotContains(t, out, "not done")

	fails(t, env, `invalid argument "0" for --limit: must be in 1..10000`, "vacuum", "--status", "--limit", "0")
}
