package httpxtest

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/videotpl/platform/pkg/httpx"
)

// Scrape serves reg's metrics as WithMetrics does and returns the body of one GET /metrics.
func Scrape(t testing.TB, reg prometheus.Gatherer) string {
	t.Helper()
	srv := httptest.NewServer(httpx.MetricsHandler(reg))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	return string(body)
}

// MetricFamilies are the names of the metric families of a /metrics body (its # TYPE lines).
func MetricFamilies(body string) []string {
	var names []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
			names = append(names, f[2])
		}
	}
	return names
}

// metricName is a metric name as a README writes it in backticks: lower case with an
// underscore, optionally followed by its labels ({route,method}) or ending in _* (a prefix).
var metricName = regexp.MustCompile("`([a-z][a-z0-9]*_[a-z0-9_]*\\*?)(\\{[^`]*\\})?`")

// DocumentedMetrics are the metric names in the metrics item of a README: the list item that
// starts with "- `GET /metrics`", up to the next item, heading or blank line. A name ending in
// _* stands for every family with that prefix (go_*).
func DocumentedMetrics(readme string) []string {
	var item []string
	in := false
	for line := range strings.SplitSeq(readme, "\n") {
		switch {
		case strings.HasPrefix(line, "- `GET /metrics`"):
			in = true
		case in && (strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == ""):
			in = false
		}
		if in {
			item = append(item, line)
		}
	}
	var names []string
	for _, m := range metricName.FindAllStringSubmatch(strings.Join(item, "\n"), -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// CheckMetricsDocumented fails t unless the README's metrics item (DocumentedMetrics) names
// exactly the metric families of the /metrics body: none missing from the README, none the
// README promises that is not served.
func CheckMetricsDocumented(t testing.TB, readme, body string) {
	t.Helper()
	documented := DocumentedMetrics(readme)
	if len(documented) == 0 {
		t.Fatal("the README has no metrics item (a list item starting with - `GET /metrics`)")
	}
	served := MetricFamilies(body)
	covers := func(doc, name string) bool {
		if p, ok := strings.CutSuffix(doc, "*"); ok {
			return strings.HasPrefix(name, p)
		}
		return doc == name
	}
	for _, name := range served {
		if !slices.ContainsFunc(documented, func(d string) bool { return covers(d, name) }) {
			t.Errorf("/metrics serves %s, which the README does not list", name)
		}
	}
	for _, doc := range documented {
		if !slices.ContainsFunc(served, func(n string) bool { return covers(doc, n) }) {
			t.Errorf("the README lists %s, which /metrics does not serve", doc)
		}
	}
}

// Sample is the value of one series of a /metrics body, named and labelled as the text format
// writes it (`name{a="x",b="y"}`), and whether the body has it.
func Sample(body, series string) (float64, bool) {
	for line := range strings.SplitSeq(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}
