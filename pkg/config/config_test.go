package config_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/pkg/config"
)

type svc struct {
	config.Common
	HTTPAddr string `env:"HTTP_ADDR" envDefault:":8081" desc:"listen address"`
}

func TestLoadAppliesDefaultsAndEnvironment(t *testing.T) {
	t.Setenv("SHUTDOWN_DRAIN", "3s")
	var c svc
	if err := config.Load(&c); err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8081" || c.ShutdownDrain != 3*time.Second || c.JWTAudience != "videotpl" {
		t.Fatalf("got addr=%q drain=%v aud=%q", c.HTTPAddr, c.ShutdownDrain, c.JWTAudience)
	}
}

func TestEveryServiceBoundsItsDatabasePoolWithDBMaxConns(t *testing.T) {
	var c svc
	if err := config.Load(&c); err != nil {
		t.Fatal(err)
	}
	if c.DBMaxConns != 16 {
		t.Fatalf("DB_MAX_CONNS unset: %d connections, want 16", c.DBMaxConns)
	}
	t.Setenv("DB_MAX_CONNS", "7")
	if err := config.Load(&c); err != nil || c.DBMaxConns != 7 {
		t.Fatalf("DB_MAX_CONNS=7: %d connections (%v)", c.DBMaxConns, err)
	}
	for _, bad := range []string{"many", "0", "-4", "2147483648"} {
		t.Setenv("DB_MAX_CONNS", bad)
		if err := config.Load(&c); err == nil || !strings.Contains(err.Error(), "DB_MAX_CONNS") {
			t.Errorf("DB_MAX_CONNS=%s: %v, want an error naming DB_MAX_CONNS", bad, err)
		}
	}
}

func TestLoadRejectsAMalformedValue(t *testing.T) {
	t.Setenv("SHUTDOWN_DRAIN", "soon")
	var c svc
	if err := config.Load(&c); err == nil {
		t.Fatal("want an error for SHUTDOWN_DRAIN=soon")
	}
}

func TestDescribeListsEmbeddedAndOwnVariables(t *testing.T) {
	vars := config.Describe(svc{})
	seen := map[string]config.Var{}
	for _, v := range vars {
		seen[v.Name] = v
	}
	if _, ok := seen["HTTP_ADDR"]; !ok {
		t.Fatalf("HTTP_ADDR missing from %v", vars)
	}
	if v := seen["JWT_HS256_SECRET"]; !v.Secret {
		t.Fatalf("JWT_HS256_SECRET should be marked secret: %+v", v)
	}
}

func TestAppEnvDefaultsToProductionAndRefusesUnknownValues(t *testing.T) {
	cases := []struct {
		value       string
		set         bool
		development bool
		ok          bool
	}{
		{set: false, development: false, ok: true},
		{value: "production", set: true, development: false, ok: true},
		{value: "development", set: true, development: true, ok: true},
		{value: " Development ", set: true, development: true, ok: true},
		{value: "dev", set: true, ok: false},
		{value: "prod", set: true, ok: false},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			t.Setenv("APP_ENV", c.value)
			if !c.set {
				_ = os.Unsetenv("APP_ENV") // t.Setenv restores it afterwards
			}
			var cfg svc
			err := config.Load(&cfg)
			if (err == nil) != c.ok {
				t.Fatalf("APP_ENV=%q: err = %v, want ok=%v", c.value, err, c.ok)
			}
			if c.ok && cfg.Environment.IsDevelopment() != c.development {
				t.Fatalf("APP_ENV=%q: development = %v", c.value, cfg.Environment.IsDevelopment())
			}
		})
	}
	if (config.Common{}).Environment.IsDevelopment() {
		t.Fatal("a configuration never loaded must count as production")
	}
}

func TestEveryServiceReadsTheSameHTTPBounds(t *testing.T) {
	t.Setenv("HTTP_BODY_TIMEOUT", "5s")
	t.Setenv("TRUSTED_PROXIES", "10.0.0.0/8")
	var c svc
	if err := config.Load(&c); err != nil {
		t.Fatal(err)
	}
	if c.HTTP.BodyTimeout != 5*time.Second || c.HTTP.TrustedProxies != "10.0.0.0/8" || c.HTTP.IdleTimeout != 2*time.Minute {
		t.Fatalf("HTTP = %+v", c.HTTP)
	}
	d, err := config.Defaults[config.HTTP]()
	if err != nil {
		t.Fatal(err)
	}
	if d.BodyTimeout != 30*time.Second || d.TrustedProxies != "" || d.MinBodyRate != 65536 {
		t.Fatalf("Defaults ignore the environment and apply envDefault; got %+v", d)
	}
	seen := map[string]bool{}
	for _, v := range config.Describe(svc{}) {
		seen[v.Name] = v.Description != ""
	}
	for _, name := range []string{"HTTP_READ_HEADER_TIMEOUT", "HTTP_BODY_TIMEOUT", "HTTP_MIN_BODY_RATE", "HTTP_WRITE_TIMEOUT",
		"HTTP_IDLE_TIMEOUT", "HTTP_MAX_BODY_LIMIT", "TRUSTED_PROXIES"} {
		if !seen[name] {
			t.Errorf("%s is not described", name)
		}
	}
}
