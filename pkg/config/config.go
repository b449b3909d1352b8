// Package config loads a service's configuration from environment variables only
// (12-factor). Each variable is declared once, on a struct field, with its default and a
// description; Describe lists them for the README and `<service> help`.
package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Common is the configuration every service shares. Services embed it.
type Common struct {
	LogLevel       string        `env:"LOG_LEVEL" envDefault:"info" desc:"debug, info, warn or error"`
	JWTIssuer      string        `env:"JWT_ISSUER" envDefault:"videotpl-dev" desc:"expected iss of bearer JWTs"`
	JWTAudience    string        `env:"JWT_AUDIENCE" envDefault:"videotpl" desc:"expected aud of bearer JWTs"`
	JWTSecret      string        `env:"JWT_HS256_SECRET" desc:"HS256 secret for development JWTs (unset in production: use JWT_JWKS_URL)" secret:"true"`
	JWKSURL        string        `env:"JWT_JWKS_URL" desc:"JWKS URL for RS256/ES256 JWTs in production"`
	ServiceTokens  string        `env:"SERVICE_TOKENS" desc:"service tokens as name:sha256hex:scope1,scope2;... (hashes only)"`
	ShutdownDrain  time.Duration `env:"SHUTDOWN_DRAIN" envDefault:"20s" desc:"how long SIGTERM waits for in-flight work"`
	OTLPEndpoint   string        `env:"OTEL_EXPORTER_OTLP_ENDPOINT" desc:"OpenTelemetry OTLP/HTTP endpoint; traces are not exported when unset"`
	MetricsEnabled bool          `env:"METRICS_ENABLED" envDefault:"true" desc:"serve Prometheus metrics at /metrics"`
	MigrateOnStart bool          `env:"MIGRATE_ON_START" envDefault:"false" desc:"apply migrations when serve starts (development; production runs the migrate Job)"`
	OutboundAllow  string        `env:"OUTBOUND_ALLOW_CIDRS" desc:"comma-separated CIDRs that outbound calls may reach even though private (e.g. 127.0.0.0/8 in development)"`
}

// Load fills cfg (a pointer to a struct) from the environment, applying defaults.
func Load(cfg any) error {
	if err := env.Parse(cfg); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}

// Var describes one environment variable.
type Var struct {
	Name, Default, Description string
	Secret                     bool
}

// Describe lists the variables cfg (a struct or pointer to one) reads, in field order.
func Describe(cfg any) []Var {
	var out []Var
	describe(reflect.Indirect(reflect.ValueOf(cfg)).Type(), &out)
	return out
}

func describe(t reflect.Type, out *[]Var) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous || (f.Type.Kind() == reflect.Struct && f.Tag.Get("env") == "" && f.Type != reflect.TypeOf(time.Time{})) {
			describe(f.Type, out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "" {
			continue
		}
		*out = append(*out, Var{Name: name, Default: f.Tag.Get("envDefault"), Description: f.Tag.Get("desc"), Secret: f.Tag.Get("secret") == "true"})
	}
}
