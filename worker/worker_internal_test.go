package worker

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/zenbrain/zb/coordinator"
)

// JobTimeout and RescueStuckJobsAfter reach River's configuration: the rescue of a dead
// worker's jobs defaults to the job timeout plus RescueMarginDefault, and a value set is
// passed on as it is.
func TestRiverConfigRescue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		cfg                 Config
		timeout, rescueWant time.Duration
	}{
		{"defaults", Config{}, JobTimeoutDefault, 11 * time.Minute},
		{"job timeout only", Config{JobTimeout: 2 * time.Minute}, 2 * time.Minute, 3 * time.Minute},
		{"both", Config{JobTimeout: 2 * time.Minute, RescueStuckJobsAfter: 5 * time.Minute}, 2 * time.Minute, 5 * time.Minute},
		{"equal", Config{JobTimeout: 2 * time.Minute, RescueStuckJobsAfter: 2 * time.Minute}, 2 * time.Minute, 2 * time.Minute},
	} {
		c := tc.cfg.withDefaults()
		rc := c.riverConfig(nil, nil, nil)
		require.Equal(t, tc.timeout, rc.JobTimeout, tc.name)
		require.Equal(t, tc.rescueWant, rc.RescueStuckJobsAfter, tc.name)
	}
}

// River's constraint (RescueStuckJobsAfter at least JobTimeout) is checked with the field names,
// and a job timeout must be positive (River's -1, no timeout, would let the default rescue take
// jobs from live workers after a minute).
func TestConfigValidateRescue(t *testing.T) {
	t.Parallel()
	base := Config{Pool: &pgxpool.Pool{}, Coordinator: &coordinator.Coordinator{}}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{
			"rescue below timeout", func(c *Config) { c.JobTimeout, c.RescueStuckJobsAfter = 10*time.Minute, time.Minute },
			"Config.RescueStuckJobsAfter (1m0s) must be at least JobTimeout (10m0s)",
		},
		{"no timeout", func(c *Config) { c.JobTimeout = -1 }, "Config.JobTimeout must be positive, got -1ns"},
	} {
		cfg := base
		tc.mod(&cfg)
		c := cfg.withDefaults()
		require.ErrorContains(t, c.validate(), tc.want, tc.name)
	}
	c := base.withDefaults()
	require.NoError(t, c.validate())
}

// The vacuum job's timeout is finite: River's rescuer never rescues a running job without one,
// and a vacuum job left running by a dead worker would hold the schedule's uniqueness.
func TestVacuumJobTimeoutIsFinite(t *testing.T) {
	t.Parallel()
	got := (&vacuumWorker{}).Timeout(nil)
	require.Positive(t, got)
	require.Equal(t, VacuumJobTimeout, got)
}
