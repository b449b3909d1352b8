package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestTheLinkerValuesWinOverTheGoBuildInformation(t *testing.T) {
	bi := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}, true
	}
	if got := read("v1.4.2-3-gdeadbee", "deadbee", bi); got != (Info{"v1.4.2-3-gdeadbee", "deadbee", "go1.26.8"}) {
		t.Errorf("with -X values: %+v", got)
	}
	if got := read("", "", bi); got != (Info{"v1.2.0", "abc123", "go1.26.8"}) {
		t.Errorf("from build info: %+v", got)
	}
	devel := func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true }
	if got := read("", "", devel); got != (Info{"unknown", "unknown", "unknown"}) {
		t.Errorf("a development build: %+v", got)
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	if got := read("", "", none); got.Version != "unknown" {
		t.Errorf("without build info: %+v", got)
	}
}

func TestBuildInfoIsOneGaugeLabelledWithTheBuild(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(Collector())
	i := Get()
	want := `# HELP build_info The running build: always 1, labelled with its version, revision and Go version.
# TYPE build_info gauge
build_info{go_version="` + i.GoVersion + `",revision="` + i.Revision + `",version="` + i.Version + `"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "build_info"); err != nil {
		t.Error(err)
	}
	if !strings.HasPrefix(i.GoVersion, "go1.") {
		t.Errorf("go_version %q: a test binary has Go build information", i.GoVersion)
	}
}
