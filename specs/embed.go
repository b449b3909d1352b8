// Package specs holds the platform's contracts as written: the OpenAPI documents of the three
// HTTP services (embedded byte for byte, so a service serves its spec as its authors wrote it)
// and the contract tests that check every spec against the interface documents it implements.
package specs

import (
	"embed"
	"fmt"
)

//go:embed openapi/*.yaml
var openAPIFiles embed.FS

// OpenAPI returns the OpenAPI document of a service ("content", "orgboard", "renderevents")
// exactly as the file specs/openapi/<service>.yaml holds it: key order, comments and
// formatting kept.
func OpenAPI(service string) ([]byte, error) {
	b, err := openAPIFiles.ReadFile("openapi/" + service + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("specs: no OpenAPI document for service %q", service)
	}
	return b, nil
}
