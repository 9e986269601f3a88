package jobs_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/jobs"
)

// The kinds and JSON shapes are stored with queued jobs; this test pins them.
func TestKindsAndJSONAreStable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args river.JobArgs
		kind string
		json string
	}{
		{
			jobs.DeriveArgs{TenantID: "t", MemoryIDs: []int64{1, 2}, NeedsEmbedding: true},
			"zb_derive",
			`{"tenant_id":"t","memory_ids":[1,2],"needs_embedding":true}`,
		},
		{
			jobs.DeriveArgs{TenantID: "t", Pending: true, RecheckSupersede: true},
			"zb_derive",
			`{"tenant_id":"t","pending":true,"recheck_supersede":true}`,
		},
		{jobs.ConsolidateArgs{TenantID: "t", SessionID: "s"}, "zb_consolidate", `{"tenant_id":"t","session_id":"s"}`},
		{jobs.DecayArgs{TenantID: "t", Limit: 5}, "zb_decay", `{"tenant_id":"t","limit":5}`},
		{jobs.ReviewArgs{TenantID: "t"}, "zb_review", `{"tenant_id":"t"}`},
		{jobs.SleepArgs{TenantID: "t", Trigger: "manual", Seed: 7}, "zb_sleep", `{"tenant_id":"t","trigger":"manual","seed":7}`},
		{jobs.PropagateArgs{TenantID: "t", MemoryIDs: []int64{3}}, "zb_propagate", `{"tenant_id":"t","memory_ids":[3]}`},
		{jobs.ScheduleArgs{Task: jobs.TaskDecay}, "zb_schedule", `{"task":"decay"}`},
		{
			jobs.ReembedArgs{TenantID: "t", MemoryIDs: []int64{4, 5}, Model: "m"},
			"zb_reembed",
			`{"tenant_id":"t","memory_ids":[4,5],"model":"m"}`,
		},
		{jobs.ReembedArgs{TenantID: "t", MemoryIDs: []int64{4}}, "zb_reembed", `{"tenant_id":"t","memory_ids":[4]}`},
		{jobs.VacuumArgs{}, "zb_vacuum", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.json, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.kind, tt.args.Kind())
			b, err := json.Marshal(tt.args)
			require.NoError(t, err)
			require.JSONEq(t, tt.json, string(b))
		})
	}
}

func ExampleDeriveArgs() {
	args := jobs.DeriveArgs{TenantID: "acme", MemoryIDs: []int64{42}}
	b, _ := json.Marshal(args)
	fmt.Println(args.Kind(), string(b))
	// Output: zb_derive {"tenant_id":"acme","memory_ids":[42]}
}
