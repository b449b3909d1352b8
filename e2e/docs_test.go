package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/gen/renderevents/rendereventsserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// chromiumPath is Debian's Chromium (`make tools` installs it where apt is). Without it the
// browser test skips, except in CI, where it must run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	const path = "/usr/bin/chromium"
	if _, err := exec.LookPath(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: `make tools` installs it with apt-get (%v)", path, err)
		}
		t.Skipf("%s is missing (`make tools` installs it with apt-get where apt is available); the docs pages are not checked in a browser", path)
	}
	return path
}

// docsServers starts the three service binaries on fresh databases, each on its own queues,
// and returns their base URLs once they are ready.
func docsServers(t *testing.T) map[string]string {
	t.Helper()
	s3 := os.Getenv("S3_TEST_ENDPOINT")
	if s3 == "" {
		t.Fatal("S3_TEST_ENDPOINT is not set: run the tests with `make test-only` (it starts MinIO)")
	}
	suffix := strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	contentBus, renderBus := bustest.Config(t), bustest.Config(t)
	common := append([]string{"LOG_LEVEL=warn", "AMQP_URL=" + bustest.URL(), "MIGRATE_ON_START=true", sealKeys},
		authtest.New(t).Env()...)
	env := map[string][]string{
		"content": {"S3_ENDPOINT=" + s3, "S3_ACCESS_KEY=" + os.Getenv("S3_TEST_ACCESS_KEY"),
			"S3_SECRET_KEY=" + os.Getenv("S3_TEST_SECRET_KEY"), "S3_BUCKET_TEMPLATES=e2e-templates-" + suffix,
			"S3_BUCKET_MEDIA=e2e-media-" + suffix, "BUS_SERVICE=" + contentBus.Service,
			"EVENTS_EXCHANGE=" + contentBus.EventsExchange, "DEAD_LETTER_EXCHANGE=" + contentBus.DeadLetterExchange},
		"orgboard": nil,
		"renderevents": {"BUS_SERVICE=" + renderBus.Service, "EVENTS_EXCHANGE=" + renderBus.EventsExchange,
			"PROGRESS_EXCHANGE=" + renderBus.ProgressExchange, "DEAD_LETTER_EXCHANGE=" + renderBus.DeadLetterExchange},
	}
	bases := map[string]string{}
	procs := map[string]*process{}
	for _, s := range services {
		bin := serviceBinary(t, s.name)
		_, dbURL := pgtest.NewDB(t)
		addr := freeAddr(t)
		vars := append(slices.Clone(common), "DATABASE_URL="+dbURL, "HTTP_ADDR="+addr)
		procs[s.name] = startProcess(t, bin, append(vars, env[s.name]...), "serve")
		bases[s.name] = "http://" + addr
	}
	for name, p := range procs {
		waitReady(t, p, bases[name], time.Minute)
	}
	return bases
}

// operationTitles lists the summary of every operation of a spec.
func operationTitles(t *testing.T, load func() (*openapi3.T, error)) []string {
	t.Helper()
	spec, err := load()
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, path := range spec.Paths.InMatchingOrder() {
		for _, op := range spec.Paths.Value(path).Operations() {
			titles = append(titles, op.Summary)
		}
	}
	slices.Sort(titles)
	return titles
}

// pageErrors collects what a page reports as an error: console.error, uncaught exceptions and
// failed loads (entries of the browser log).
type pageErrors struct {
	mu   sync.Mutex
	msgs []string
}

// watch subscribes to the console of the tab (before it navigates) and collects its errors
// until the tab's context ends.
func (p *pageErrors) watch(tab context.Context) {
	messages := chromedp.Console(tab)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				p.mu.Lock()
				p.msgs = append(p.msgs, m.String()+" "+m.URL)
				p.mu.Unlock()
			}
		}
	}()
}

func (p *pageErrors) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.msgs)
}

// renderedDocs is what the test reads back from a rendered /docs page.
type renderedDocs struct {
	Titles []string `json:"titles"` // the operation headings
	Text   string   `json:"text"`   // the page's visible text
}

const readDocs = `(() => ({
  titles: Array.from(document.querySelectorAll('[data-section-id*="operation/"] h2')).map(h => h.textContent.trim()),
  text: document.body.innerText,
}))()`

// constraints are what Redoc writes for the limits, defaults and enums of a schema.
var constraints = map[string]*regexp.Regexp{
	"a range of values":           regexp.MustCompile(`\[ \d+ \.\. \d+ \]`),
	"a default value":             regexp.MustCompile(`Default: \S`),
	"the allowed values":          regexp.MustCompile(`Enum: "`),
	"request or response samples": regexp.MustCompile(`(Request|Response) samples`),
}

func TestEachServicesDocsPageRendersEveryOperationInABrowserWithoutErrors(t *testing.T) {
	chromium := chromiumPath(t)
	checkDocsInBrowser(t, chromium, func() map[string]string { return docsServers(t) })
}

// checkDocsInBrowser starts one headless Chromium while the services start (servers returns
// their base URLs by name, once ready), opens the /docs page of each service in a tab of its
// own, the three side by side, and checks what it renders.
func checkDocsInBrowser(t *testing.T, chromium string, servers func() map[string]string) {
	titles := map[string][]string{
		"content":      operationTitles(t, contentserver.GetSpec),
		"orgboard":     operationTitles(t, orgboardserver.GetSpec),
		"renderevents": operationTitles(t, rendereventsserver.GetSpec),
	}
	shots := filepath.Join(repoRoot(t), "bin", "docs-screenshots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	// One browser for the three pages; the machine has no network, so nothing may be fetched
	// from elsewhere, and a fresh profile keeps the run from depending on an earlier one.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1440, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
	t.Cleanup(cancelAlloc) // after the parallel subtests, which run once this function returned
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	// The browser starts while the services start and migrate.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(browser) }()
	bases := servers()
	if err := <-started; err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}

	for _, s := range services {
		t.Run(s.name, func(t *testing.T) {
			// Redoc renders on one core per tab: the three pages render at once.
			t.Parallel()
			tab, cancelTab := chromedp.NewContext(browser)
			defer cancelTab()
			var errs pageErrors
			errs.watch(tab)
			// Deadlines for three pages rendering at once on a busy 2-core machine.
			steps, cancelSteps := context.WithTimeout(tab, 4*time.Minute)
			defer cancelSteps()

			want := titles[s.name]
			base := bases[s.name]
			// Redoc renders once it has fetched and parsed the spec: wait for every heading.
			rendered := fmt.Sprintf(`document.querySelectorAll('[data-section-id*="operation/"] h2').length >= %d`, len(want))
			if err := chromedp.Do(steps, chromedp.Navigate(base+"/docs"),
				chromedp.Poll[chromedp.Void](rendered, chromedp.WithPollingInterval(100*time.Millisecond),
					chromedp.WithPollingTimeout(200*time.Second))); err != nil {
				t.Fatalf("rendering %s/docs: %v (page errors: %q)", base, err, errs.all())
			}
			page, err := chromedp.Run(steps, chromedp.Evaluate[renderedDocs](readDocs))
			if err != nil {
				t.Fatal(err)
			}
			shoot(t, steps, filepath.Join(shots, s.name+".png"))
			// The first operation with a parameter table, to see limits, defaults and samples.
			if _, err := chromedp.Run(steps, chromedp.Evaluate[bool](`(() => {
  const table = document.querySelector('[data-section-id*="operation/"] table');
  if (table) table.closest('[data-section-id*="operation/"]').scrollIntoView();
  return true })()`)); err != nil {
				t.Fatal(err)
			}
			shoot(t, steps, filepath.Join(shots, s.name+"-operation.png"))

			got := slices.Sorted(slices.Values(page.Titles))
			if !slices.Equal(got, want) {
				t.Errorf("operation headings differ from the spec's summaries:\n got %q\nwant %q", got, want)
			}
			for what, re := range constraints {
				if !re.MatchString(page.Text) {
					t.Errorf("the page shows no %s (%s)", what, re)
				}
			}
			// The descriptions are Markdown: rendered, their `code` spans show no backquotes.
			if i := strings.Index(page.Text, "`"); i >= 0 {
				t.Errorf("Markdown left unrendered: %q", page.Text[max(0, i-60):min(len(page.Text), i+60)])
			}
			if e := errs.all(); len(e) > 0 {
				t.Errorf("the page reported errors:\n%s", strings.Join(e, "\n"))
			}

			// The spec itself opens as text in the browser, not as a download.
			if err := chromedp.Do(steps, chromedp.Navigate(base+"/openapi.yaml")); err != nil {
				t.Fatalf("opening /openapi.yaml: %v", err)
			}
			shown, err := chromedp.Run(steps, chromedp.Evaluate[string](`document.body.innerText`))
			if err != nil || !strings.HasPrefix(shown, "openapi: 3.0.3\n") {
				t.Errorf("/openapi.yaml is not shown as text (%v): %.80q", err, shown)
			}
		})
	}
}

// shoot writes a screenshot of the tab's window for a person to look at.
func shoot(t *testing.T, tab context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
