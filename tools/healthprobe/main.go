// Command healthprobe is the health check of the service images, which have no shell or
// curl (distroless): it GETs a URL and exits 0 on a 2xx answer, 1 otherwise. Without an
// argument it GETs /readyz on the port of HTTP_ADDR, the address the service listens on (the
// image sets it), so one image definition serves every service.
//
//	healthprobe http://127.0.0.1:8081/readyz
//	HTTP_ADDR=:8081 healthprobe
//
// It imports only the standard library, so each service Dockerfile builds it from this one
// file. Compose runs it as the container's healthcheck; Kubernetes probes over HTTP instead.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		u, err := readyzURL(os.Getenv("HTTP_ADDR"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "healthprobe:", err)
			os.Exit(1)
		}
		args = []string{u}
	}
	if err := probe(context.Background(), args, 3*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, "healthprobe:", err)
		os.Exit(1)
	}
}

// readyzURL is the readiness URL of a service listening on addr (host:port, host optional):
// on the loopback interface when it listens on every interface.
func readyzURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("HTTP_ADDR %q: want host:port or :port", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}

// probe GETs the single URL of args within timeout and fails unless the answer is 2xx.
func probe(ctx context.Context, args []string, timeout time.Duration) error {
	if len(args) != 1 {
		return errors.New("usage: healthprobe URL")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("GET %s: %s", args[0], resp.Status)
	}
	return nil
}
