// Command orgboard is a first call to the orgboard service through its generated Go client
// (github.com/videotpl/platform/gen/orgboard): create an organization, then list the
// caller's organizations.
//
//	TOKEN=$(bin/orgboard token) GOWORK=off go run ./orgboard -base http://127.0.0.1:8082 -name Acme
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

	"github.com/videotpl/platform/gen/orgboard"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8082", "API base address (the server URL of the spec)")
	name := flag.String("name", "Example organization", "name of the organization to create")
	flag.Parse()
	if err := run(context.Background(), *base, os.Getenv("TOKEN"), *name); err != nil {
		fmt.Fprintln(os.Stderr, "orgboard example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, base, token, name string) error {
	c, err := orgboard.NewClientWithResponses(base,
		orgboard.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}),
		orgboard.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		return err
	}
	created, err := c.CreateOrganizationWithResponse(ctx, nil, orgboard.CreateOrganizationJSONRequestBody{Name: name})
	if err != nil {
		return err
	}
	if created.JSON201 == nil {
		return fmt.Errorf("create organization: %s %s", created.Status(), created.Body)
	}
	fmt.Printf("created %s %q\n", created.JSON201.Id, created.JSON201.Name)

	list, err := c.ListOrganizationsWithResponse(ctx)
	if err != nil {
		return err
	}
	if list.JSON200 == nil {
		return fmt.Errorf("list organizations: %s %s", list.Status(), list.Body)
	}
	fmt.Printf("%d organizations\n", len(list.JSON200.Data))
	for _, o := range list.JSON200.Data {
		fmt.Printf("%s\t%s\n", o.Id, o.Name)
	}
	return nil
}
