package perf_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

// fakeWorker stands in for zbworker in the load test's process tests: like zbworker it prints
// the address of its /metrics and /healthz on standard output and stops on SIGTERM. mode
// "serve" exits 0 on SIGTERM, "fail-stop" exits 2 with a message, "fail-start" exits 3 at once.
func fakeWorker(mode string) int {
	if mode == "fail-start" {
		fmt.Fprintln(os.Stderr, "error reading the embedding dimension (is the database migrated?)")
		return 3
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, `{"status":"ok"}`) })
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "# HELP go_goroutines Number of goroutines that currently exist.\n# TYPE go_goroutines gauge\ngo_goroutines 17\n")
	})
	go func() { _ = http.Serve(ln, mux) }()
	fmt.Printf("zbworker test: metrics http://%s/metrics, health http://%s/healthz\n", ln.Addr(), ln.Addr())
	<-term
	if mode == "fail-stop" {
		fmt.Fprintln(os.Stderr, "error stopping: jobs still running")
		return 2
	}
	return 0
}
