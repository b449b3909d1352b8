// Command renderevents is a first call to the renderevents service through its generated Go
// client (github.com/videotpl/platform/gen/renderevents): the caller's latest render jobs.
//
//	TOKEN=$(bin/renderevents token) GOWORK=off go run ./renderevents -base http://127.0.0.1:8083/v1
//
// Run it from e2e/examples, a module of its own (GOWORK=off leaves the repository's workspace):
// like a team's module it requires github.com/videotpl/platform/gen and nothing else.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/videotpl/platform/gen/renderevents"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8083/v1", "API base address (the server URL of the spec)")
	limit := flag.Int("limit", 20, "page size")
	flag.Parse()
	if err := run(context.Background(), *base, os.Getenv("TOKEN"), *limit); err != nil {
		fmt.Fprintln(os.Stderr, "renderevents example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, base, token string, limit int) error {
	c, err := renderevents.NewClientWithResponses(base,
		renderevents.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}),
		renderevents.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		return err
	}
	res, err := c.ListRenderJobsWithResponse(ctx, &renderevents.ListRenderJobsParams{Limit: &limit})
	if err != nil {
		return err
	}
	if res.JSON200 == nil {
		return fmt.Errorf("list render jobs: %s %s", res.Status(), res.Body)
	}
	fmt.Printf("%d render jobs\n", len(res.JSON200.Data))
	for _, j := range res.JSON200.Data {
		fmt.Printf("%s\t%s\t%d%%\n", j.JobId, j.State, j.Progress)
	}
	return nil
}
