package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// Each image's binary, as the Dockerfile builds it, serves /healthz on the API port with the
// version and revision the build stamped, and /metrics (with build_info) only on METRICS_ADDR.
func TestHealthAndMetricsReportTheBuildOnTheirOwnPorts(t *testing.T) {
	s3 := os.Getenv("S3_TEST_ENDPOINT")
	if s3 == "" {
		t.Fatal("S3_TEST_ENDPOINT is not set: run the tests with `make test-only` (it starts MinIO)")
	}
	suffix := strings.ReplaceAll(uuid.NewString()[:13], "-", "")
	contentBus, renderBus := bustest.Config(t), bustest.Config(t)
	common := []string{"LOG_LEVEL=warn", "APP_ENV=development", "JWT_HS256_SECRET=e2e-build-info-0123456789abcdef0123456789abcdef", "AMQP_URL=" + bustest.URL(), "MIGRATE_ON_START=true", sealKeys}
	env := map[string][]string{
		"content": {"S3_ENDPOINT=" + s3, "S3_ACCESS_KEY=" + os.Getenv("S3_TEST_ACCESS_KEY"),
			"S3_SECRET_KEY=" + os.Getenv("S3_TEST_SECRET_KEY"), "S3_BUCKET_TEMPLATES=e2e-build-t-" + suffix,
			"S3_BUCKET_MEDIA=e2e-build-m-" + suffix, "BUS_SERVICE=" + contentBus.Service,
			"EVENTS_EXCHANGE=" + contentBus.EventsExchange, "DEAD_LETTER_EXCHANGE=" + contentBus.DeadLetterExchange},
		"renderevents": {"BUS_SERVICE=" + renderBus.Service, "EVENTS_EXCHANGE=" + renderBus.EventsExchange,
			"PROGRESS_EXCHANGE=" + renderBus.ProgressExchange, "DEAD_LETTER_EXCHANGE=" + renderBus.DeadLetterExchange},
	}
	type started struct {
		p            *process
		api, metrics string
	}
	procs := map[string]started{}
	for _, s := range services {
		_, dbURL := pgtest.NewDB(t)
		api, metrics := freeAddr(t), freeAddr(t)
		vars := append(slices.Clone(common), "DATABASE_URL="+dbURL, "HTTP_ADDR="+api, "METRICS_ADDR="+metrics)
		procs[s.name] = started{startProcess(t, serviceBinary(t, s.name), append(vars, env[s.name]...), "serve"),
			"http://" + api, "http://" + metrics}
	}
	for _, s := range services {
		t.Run(s.name, func(t *testing.T) {
			st := procs[s.name]
			waitReady(t, st.p, st.api, time.Minute)

			status, body := get(t, st.api+"/healthz")
			var health map[string]string
			if err := json.Unmarshal([]byte(body), &health); status != 200 || err != nil {
				t.Fatalf("healthz %d %s (%v)", status, body, err)
			}
			if health["status"] != "ok" || health["version"] != imageVersion || health["revision"] != imageRevision ||
				!strings.HasPrefix(health["go_version"], "go1.") {
				t.Errorf("healthz = %v, want ok with version %s, revision %s and the Go version", health, imageVersion, imageRevision)
			}

			status, body = get(t, st.metrics+"/metrics")
			want := `build_info{go_version="` + health["go_version"] + `",revision="` + imageRevision + `",version="` + imageVersion + `"} 1`
			if status != 200 || !strings.Contains(body, want) || !strings.Contains(body, "go_goroutines") {
				t.Errorf("metrics %d: want %s and the runtime's metrics in:\n%.2000s", status, want, body)
			}
			if status, _ := get(t, st.api+"/metrics"); status != http.StatusNotFound {
				t.Errorf("the API port answers /metrics with %d, want 404: metrics have their own port", status)
			}
		})
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
