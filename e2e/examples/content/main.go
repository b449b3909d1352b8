// Command content is a first call to the content service through its generated Go client
// (github.com/videotpl/platform/gen/content): the most popular templates of the catalog.
//
//	TOKEN=$(bin/content token --roles admin) GOWORK=off go run ./content -base http://127.0.0.1:8081/v1
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

	"github.com/videotpl/platform/gen/content"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8081/v1", "API base address (the server URL of the spec)")
	flag.Parse()
	if err := run(context.Background(), *base, os.Getenv("TOKEN")); err != nil {
		fmt.Fprintln(os.Stderr, "content example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, base, token string) error {
	c, err := content.NewClientWithResponses(base,
		content.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}),
		content.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		return err
	}
	sort := content.ListTemplatesParamsSortPopular
	res, err := c.ListTemplatesWithResponse(ctx, &content.ListTemplatesParams{Sort: &sort})
	if err != nil {
		return err
	}
	if res.JSON200 == nil {
		return fmt.Errorf("list templates: %s %s", res.Status(), res.Body)
	}
	fmt.Printf("%d templates\n", len(res.JSON200.Data))
	for _, t := range res.JSON200.Data {
		fmt.Printf("%s\t%s\n", t.Slug, t.Name)
	}
	return nil
}
