package e2e

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// composeFile is the part of the Compose specification compose.yaml uses; decoding with
// KnownFields refuses a misspelt key.
type composeFile struct {
	Name     string                    `yaml:"name"`
	XEnv     map[string]string         `yaml:"x-service-env"`
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
	Networks map[string]any            `yaml:"networks"`
	Configs  map[string]any            `yaml:"configs"`
	Secrets  map[string]any            `yaml:"secrets"`
}

type composeService struct {
	Image       string                       `yaml:"image"`
	Build       *composeBuild                `yaml:"build"`
	Command     []string                     `yaml:"command"`
	Entrypoint  []string                     `yaml:"entrypoint"`
	Restart     string                       `yaml:"restart"`
	Environment map[string]string            `yaml:"environment"`
	Ports       []string                     `yaml:"ports"`
	Volumes     []string                     `yaml:"volumes"`
	Healthcheck *composeHealthcheck          `yaml:"healthcheck"`
	DependsOn   map[string]composeDependency `yaml:"depends_on"`
}

type composeBuild struct {
	Context    string            `yaml:"context"`
	Dockerfile string            `yaml:"dockerfile"`
	Args       map[string]string `yaml:"args"`
}

type composeHealthcheck struct {
	Test        []string `yaml:"test"`
	Interval    string   `yaml:"interval"`
	Timeout     string   `yaml:"timeout"`
	Retries     int      `yaml:"retries"`
	StartPeriod string   `yaml:"start_period"`
}

type composeDependency struct {
	Condition string `yaml:"condition"`
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

// oneShot services run to completion (restart "no") and are waited for with
// service_completed_successfully.
func (s composeService) oneShot() bool { return s.Restart == "no" }

func TestComposeStartsEveryServiceInOrderAndWaitsForItsHealth(t *testing.T) {
	c := loadCompose(t)
	root := repoRoot(t)
	for _, want := range []string{"postgres", "rabbitmq", "minio"} {
		if _, ok := c.Services[want]; !ok {
			t.Errorf("compose.yaml has no %s", want)
		}
	}
	hostPorts := map[string]string{}
	for name, s := range c.Services {
		if s.Image == "" || (!pinned(s.Image) && s.Build == nil) {
			t.Errorf("%s: image %q is not pinned", name, s.Image)
		}
		if s.Build != nil {
			if _, err := os.Stat(filepath.Join(root, s.Build.Context, s.Build.Dockerfile)); err != nil {
				t.Errorf("%s: build %v: %v", name, s.Build, err)
			}
		}
		if !s.oneShot() && (s.Healthcheck == nil || len(s.Healthcheck.Test) == 0) {
			t.Errorf("%s is neither one-shot nor health-checked", name)
		}
		for dep, d := range s.DependsOn {
			target, ok := c.Services[dep]
			switch {
			case !ok:
				t.Errorf("%s depends on %s, which does not exist", name, dep)
			case d.Condition == "service_healthy" && target.Healthcheck == nil:
				t.Errorf("%s waits for %s to be healthy, which has no health check", name, dep)
			case d.Condition == "service_completed_successfully" && !target.oneShot():
				t.Errorf("%s waits for %s to complete, which is not one-shot", name, dep)
			case d.Condition != "service_healthy" && d.Condition != "service_completed_successfully":
				t.Errorf("%s depends on %s with condition %q: wait for health or completion", name, dep, d.Condition)
			}
		}
		if s.oneShot() && !dependedOnToComplete(c, name) {
			t.Errorf("the one-shot %s is waited for by nobody", name)
		}
		for _, p := range s.Ports {
			host := p[:strings.LastIndex(p, ":")]
			if other, dup := hostPorts[host]; dup {
				t.Errorf("%s and %s publish the same host port %s", name, other, host)
			}
			hostPorts[host] = name
		}
	}
	if cycle := dependencyCycle(c); cycle != "" {
		t.Errorf("depends_on has a cycle: %s", cycle)
	}

	// Each service: its migration completes first, on its own database, created by postgres-init.
	initScript := strings.Join(c.Services["postgres-init"].Command, "\n")
	for _, svc := range services {
		s, ok := c.Services[svc.name]
		if !ok {
			t.Errorf("compose.yaml has no %s", svc.name)
			continue
		}
		migrate := svc.name + "-migrate"
		m, ok := c.Services[migrate]
		switch {
		case !ok:
			t.Errorf("%s has no %s step", svc.name, migrate)
		case s.DependsOn[migrate].Condition != "service_completed_successfully":
			t.Errorf("%s does not wait for %s to complete", svc.name, migrate)
		case strings.Join(m.Command, " ") != "migrate" || m.Image != s.Image:
			t.Errorf("%s runs %s %v, want the service's image with [migrate]", migrate, m.Image, m.Command)
		case m.Environment["DATABASE_URL"] != s.Environment["DATABASE_URL"]:
			t.Errorf("%s migrates %s but %s uses %s", migrate, m.Environment["DATABASE_URL"], svc.name, s.Environment["DATABASE_URL"])
		}
		u, err := url.Parse(s.Environment["DATABASE_URL"])
		if err != nil || strings.TrimPrefix(u.Path, "/") != svc.name {
			t.Errorf("%s: DATABASE_URL %q is not its own database %s", svc.name, s.Environment["DATABASE_URL"], svc.name)
		}
		if !regexp.MustCompile(`\b` + svc.name + `\b`).MatchString(initScript) {
			t.Errorf("postgres-init does not create the database %s", svc.name)
		}
		if s.Environment["HTTP_ADDR"] != fmt.Sprintf(":%d", svc.port) {
			t.Errorf("%s: HTTP_ADDR %q, want :%d", svc.name, s.Environment["HTTP_ADDR"], svc.port)
		}
		if hc := strings.Join(s.Healthcheck.Test, " "); !strings.Contains(hc, fmt.Sprintf("127.0.0.1:%d/readyz", svc.port)) {
			t.Errorf("%s: health check %q does not probe /readyz", svc.name, hc)
		}
		if b := s.Build; b == nil || b.Dockerfile != "Dockerfile" || b.Args["SERVICE"] != svc.name || b.Args["PORT"] != fmt.Sprint(svc.port) {
			t.Errorf("%s: build %+v, want the one Dockerfile with SERVICE=%s PORT=%d", svc.name, b, svc.name, svc.port)
		}
		if s.Environment["JWT_HS256_SECRET"] == "" {
			t.Errorf("%s has no development JWT secret", svc.name)
		}
		// Every variable set is one the service reads (`<service> help`).
		vars := envVars(t, serviceBinary(t, svc.name))
		for k := range s.Environment {
			if !vars[k] {
				t.Errorf("%s sets %s, which %s does not read", svc.name, k, svc.name)
			}
		}
	}
	// A RabbitMQ release with support: 4.x (3.13's community support has ended).
	if img := c.Services["rabbitmq"].Image; !regexp.MustCompile(`^rabbitmq:4\.\d+`).MatchString(img) {
		t.Errorf("rabbitmq runs %s, want a supported 4.x release", img)
	}
	content := c.Services["content"]
	if content.DependsOn["minio-init"].Condition != "service_completed_successfully" {
		t.Error("content does not wait for its buckets (minio-init)")
	}
	for _, v := range []string{"S3_BUCKET_TEMPLATES", "S3_BUCKET_MEDIA"} {
		b := content.Environment[v]
		if b == "" || !regexp.MustCompile(`local/`+regexp.QuoteMeta(b)+`\b`).MatchString(strings.Join(c.Services["minio-init"].Command, " ")) {
			t.Errorf("minio-init does not create content's bucket %s=%q", v, b)
		}
	}
}

func dependedOnToComplete(c composeFile, name string) bool {
	for _, s := range c.Services {
		if s.DependsOn[name].Condition == "service_completed_successfully" {
			return true
		}
	}
	return false
}

func dependencyCycle(c composeFile) string {
	state := map[string]int{} // 1 visiting, 2 done
	var path []string
	var visit func(string) string
	visit = func(n string) string {
		switch state[n] {
		case 1:
			return strings.Join(append(path, n), " -> ")
		case 2:
			return ""
		}
		state[n] = 1
		path = append(path, n)
		for dep := range c.Services[n].DependsOn {
			if cyc := visit(dep); cyc != "" {
				return cyc
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
		return ""
	}
	for n := range c.Services {
		if cyc := visit(n); cyc != "" {
			return cyc
		}
	}
	return ""
}
