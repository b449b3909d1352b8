// The Go SDK used from a module of its own, as a team outside this repository uses it: it
// requires the gen module and nothing else of the platform, and builds with GOWORK=off.
module github.com/videotpl/platform/e2e/examples

go 1.26

require github.com/videotpl/platform/gen v1.0.0

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/oapi-codegen/runtime v1.8.0 // indirect
)

// The gen module is not on a module proxy yet, so it comes from this checkout. Outside the
// repository, drop this line and pin a release: go get github.com/videotpl/platform/gen@gen/v1.0.0
replace github.com/videotpl/platform/gen => ../../gen
