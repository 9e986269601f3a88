package worker

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/zenbrain/zb/db"
)

// Metrics are the worker's Prometheus metrics: jobs by kind and final state, job durations,
// queue depth, and memories by layer and status (the last two read from the database at each
// scrape).
type Metrics struct {
	jobs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
	q        *db.Queries
}

// NewMetrics registers the worker's metrics with reg. Queue depth and memory counts are
// collected from q at scrape time.
func NewMetrics(reg prometheus.Registerer, q *db.Queries) (*Metrics, error) {
	m := &Metrics{
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "zenbrain", Name: "jobs_total",
			Help: "Jobs worked by this worker, by kind and final state (completed, failed, cancelled, snoozed).",
		}, []string{"kind", "state"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "zenbrain", Name: "job_duration_seconds",
			Help:    "Time spent working a job, by kind.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"kind"}),
		q: q,
	}
	for _, c := range []prometheus.Collector{m.jobs, m.duration, &dbCollector{q: q}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) observe(ev *river.Event) {
	if ev == nil || ev.Job == nil {
		return
	}
	state := string(ev.Kind)
	switch ev.Kind {
	case river.EventKindJobCompleted:
		state = "completed"
	case river.EventKindJobFailed:
		state = "failed"
	case river.EventKindJobCancelled:
		state = "cancelled"
	case river.EventKindJobSnoozed:
		state = "snoozed"
	}
	m.jobs.WithLabelValues(ev.Job.Kind, state).Inc()
	if ev.JobStats != nil {
		m.duration.WithLabelValues(ev.Job.Kind).Observe(ev.JobStats.RunDuration.Seconds())
	}
}

var (
	queueDepthDesc = prometheus.NewDesc("zenbrain_queue_jobs", "River jobs by queue and state.", []string{"queue", "state"}, nil)
	memoriesDesc   = prometheus.NewDesc("zenbrain_memories", "Memories by layer and status, over all tenants.", []string{"layer", "status"}, nil)
)

// dbCollector reads queue depth and memory counts at scrape time.
type dbCollector struct{ q *db.Queries }

func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- memoriesDesc
}

func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if rows, err := c.q.JobCountsByQueueState(ctx); err == nil {
		for _, r := range rows {
			ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(r.N), r.Queue, r.State)
		}
	} else {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
	}
	if rows, err := c.q.MemoryCountAllByLayerStatus(ctx); err == nil {
		for _, r := range rows {
			ch <- prometheus.MustNewConstMetric(memoriesDesc, prometheus.GaugeValue, float64(r.N), string(r.Layer), string(r.Status))
		}
	} else {
		ch <- prometheus.NewInvalidMetric(memoriesDesc, err)
	}
}
