// Command healthprobe is the health check of the service images, which have no shell or
// curl (distroless): it GETs a URL and exits 0 on a 2xx answer, 1 otherwise.
//
//	healthprobe http://127.0.0.1:8081/readyz
//
// It imports only the standard library, so each service Dockerfile builds it from this one
// file. Compose runs it as the container's healthcheck; Kubernetes probes over HTTP instead.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	if err := probe(context.Background(), os.Args[1:], 3*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, "healthprobe:", err)
		os.Exit(1)
	}
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
