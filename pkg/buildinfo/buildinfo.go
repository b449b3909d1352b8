// Package buildinfo tells which build of a service is running: the version and revision the
// build stamped into the binary (make build and the Dockerfile pass them from git describe:
// -ldflags "-X github.com/videotpl/platform/pkg/buildinfo.version=... -X ...revision=..."),
// else what the Go toolchain recorded (module version, vcs.revision), and the Go version.
// /healthz reports it and the build_info gauge exports it.
package buildinfo

import (
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Set by the linker (-X); empty in a plain go build or go test.
var (
	version  string
	revision string
)

// Info identifies a build.
type Info struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	GoVersion string `json:"go_version"`
}

var (
	once sync.Once
	info Info
)

// Get returns the running binary's build: the linker's values first, then the Go build
// information; "unknown" where neither says.
func Get() Info {
	once.Do(func() { info = read(version, revision, debug.ReadBuildInfo) })
	return info
}

func read(version, revision string, buildInfo func() (*debug.BuildInfo, bool)) Info {
	i := Info{Version: version, Revision: revision}
	if bi, ok := buildInfo(); ok {
		i.GoVersion = bi.GoVersion
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && i.Revision == "" {
				i.Revision = s.Value
			}
		}
	}
	for _, f := range []*string{&i.Version, &i.Revision, &i.GoVersion} {
		if *f == "" {
			*f = "unknown"
		}
	}
	return i
}

// Collector is the build_info gauge: value 1, labelled with version, revision and go_version,
// so dashboards can join any series to the build that produced it.
func Collector() prometheus.Collector {
	i := Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "build_info",
		Help:        "The running build: always 1, labelled with its version, revision and Go version.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": i.Revision, "go_version": i.GoVersion},
	})
	g.Set(1)
	return g
}
