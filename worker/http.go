package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"riverqueue.com/riverui"
)

// HTTPOpts configures the worker's HTTP server.
type HTTPOpts struct {
	// Addr is the listen address, e.g. "127.0.0.1:9188".
	Addr string
	// Gatherer serves /metrics. Nil disables /metrics.
	Gatherer prometheus.Gatherer
	// RiverUI mounts River UI at /riverui.
	RiverUI bool
}

// HTTPServer serves /metrics, /healthz and optionally /riverui.
type HTTPServer struct {
	srv    *http.Server
	ln     net.Listener
	done   chan error
	stopUI func()
}

// ServeHTTP starts the HTTP server in the background. /healthz answers 200 with the worker id
// while the database answers, 503 otherwise.
func (w *Worker) ServeHTTP(ctx context.Context, opts HTTPOpts) (*HTTPServer, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(rw http.ResponseWriter, r *http.Request) {
		pctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		status, body := http.StatusOK, map[string]any{"status": "ok", "worker_id": w.cfg.ID, "queues": w.cfg.Queues}
		if err := w.cfg.Pool.Ping(pctx); err != nil {
			status, body = http.StatusServiceUnavailable, map[string]any{"status": "database unreachable", "error": err.Error()}
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(status)
		_ = json.NewEncoder(rw).Encode(body)
	})
	if opts.Gatherer != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{}))
	}
	stopUI := func() {}
	if opts.RiverUI {
		h, err := riverui.NewHandler(&riverui.HandlerOpts{
			Endpoints: riverui.NewEndpoints(w.client, nil),
			Logger:    w.cfg.Logger,
			Prefix:    "/riverui",
		})
		if err != nil {
			return nil, fmt.Errorf("error creating River UI: %w", err)
		}
		// River UI's background services stop when their context ends: on Shutdown.
		uiCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		if err := h.Start(uiCtx); err != nil {
			cancel()
			return nil, fmt.Errorf("error starting River UI: %w", err)
		}
		stopUI = cancel
		mux.Handle("/riverui/", h)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		stopUI()
		return nil, fmt.Errorf("error listening on %s (another zbworker running? use --http-addr): %w", opts.Addr, err)
	}
	s := &HTTPServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, done: make(chan error, 1), stopUI: stopUI}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *HTTPServer) Addr() string { return s.ln.Addr().String() }

// Shutdown stops the server gracefully.
func (s *HTTPServer) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.stopUI()
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
