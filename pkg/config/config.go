// Package config loads a service's configuration from environment variables only
// (12-factor). Each variable is declared once, on a struct field, with its default and a
// description; Describe lists them for the README and `<service> help`.
package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Common is the configuration every service shares. Services embed it.
type Common struct {
	Environment    Environment   `env:"APP_ENV" envDefault:"production" desc:"production or development: development may run with throwaway settings (an ephemeral sealing key) that production refuses"`
	LogLevel       string        `env:"LOG_LEVEL" envDefault:"info" desc:"debug, info, warn or error"`
	JWTIssuer      string        `env:"JWT_ISSUER" envDefault:"videotpl-dev" desc:"expected iss of bearer JWTs"`
	JWTAudience    string        `env:"JWT_AUDIENCE" envDefault:"videotpl" desc:"expected aud of bearer JWTs"`
	JWTSecret      string        `env:"JWT_HS256_SECRET" desc:"HS256 secret for development JWTs (unset in production: use JWT_JWKS_URL)" secret:"true"`
	JWKSURL        string        `env:"JWT_JWKS_URL" desc:"JWKS URL for RS256/ES256 JWTs in production"`
	ServiceTokens  string        `env:"SERVICE_TOKENS" desc:"service tokens as name:sha256hex:scope1,scope2;... (hashes only)"`
	DBMaxConns     PoolSize      `env:"DB_MAX_CONNS" envDefault:"16" desc:"largest number of database connections of the pool; it takes precedence over pool_max_conns in the database URL"`
	ShutdownDrain  time.Duration `env:"SHUTDOWN_DRAIN" envDefault:"20s" desc:"how long SIGTERM waits for in-flight work"`
	OTLPEndpoint   string        `env:"OTEL_EXPORTER_OTLP_ENDPOINT" desc:"OpenTelemetry OTLP/HTTP endpoint; traces are not exported when unset"`
	TracesSampler  string        `env:"OTEL_TRACES_SAMPLER" envDefault:"parentbased_always_on" desc:"which traces are recorded: always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio (parentbased: a request that arrives with a trace context follows its caller's decision)"`
	SamplerArg     string        `env:"OTEL_TRACES_SAMPLER_ARG" desc:"fraction of traces the traceidratio samplers record, between 0 and 1 (unset: 1)"`
	MetricsEnabled bool          `env:"METRICS_ENABLED" envDefault:"true" desc:"serve Prometheus metrics at /metrics on METRICS_ADDR"`
	MetricsAddr    string        `env:"METRICS_ADDR" envDefault:":9090" desc:"address the metrics server (/metrics only) listens on, apart from the API's port so the API's ingress never exposes it"`
	MigrateOnStart bool          `env:"MIGRATE_ON_START" envDefault:"false" desc:"apply migrations when serve starts (development; in Kubernetes every pod's migrate init container applies them first)"`
	OutboundAllow  string        `env:"OUTBOUND_ALLOW_CIDRS" desc:"comma-separated CIDR ranges that outbound calls (tool servers, model gateways, webhooks) may reach although internal (loopback, private, link-local are denied otherwise), e.g. 127.0.0.0/8 in development"`
	HTTP           HTTP
}

// HTTP bounds how long a client may hold a connection of the HTTP server and whom the server
// believes about the client's address. Every service reads the same variables.
type HTTP struct {
	ReadHeaderTimeout time.Duration `env:"HTTP_READ_HEADER_TIMEOUT" envDefault:"10s" desc:"time a client has to send the request line and headers"`
	BodyTimeout       time.Duration `env:"HTTP_BODY_TIMEOUT" envDefault:"30s" desc:"time a request body has to arrive, extended by one second per HTTP_MIN_BODY_RATE bytes received (so long uploads continue while they keep the rate); a body still arriving at the deadline is cut with 408"`
	MinBodyRate       int64         `env:"HTTP_MIN_BODY_RATE" envDefault:"65536" desc:"bytes per second a request body must average after HTTP_BODY_TIMEOUT's allowance (see there); 0 turns the extension off"`
	WriteTimeout      time.Duration `env:"HTTP_WRITE_TIMEOUT" envDefault:"60s" desc:"time to write a response once the request body has arrived; event streams (text/event-stream) are exempt"`
	IdleTimeout       time.Duration `env:"HTTP_IDLE_TIMEOUT" envDefault:"2m" desc:"how long a keep-alive connection may wait for its next request"`
	MaxBodyLimit      int64         `env:"HTTP_MAX_BODY_LIMIT" envDefault:"16777216" desc:"ceiling in bytes of the body limit an operation derives from its request schema (operations without bounded schemas keep 1 MiB; uploads have their own limits)"`
	TrustedProxies    string        `env:"TRUSTED_PROXIES" desc:"comma-separated CIDR ranges of reverse proxies whose X-Forwarded-For names the client in logs; unset: no proxy is trusted and logs show the connection's peer address"`
}

// Defaults returns cfg's variables at their defaults, ignoring the environment.
func Defaults[T any]() (T, error) {
	var cfg T
	if err := env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{}}); err != nil {
		return cfg, fmt.Errorf("configuration defaults: %w", err)
	}
	return cfg, nil
}

// Sealing is the configuration of a service that seals secrets at rest; such services embed it.
type Sealing struct {
	SealKeys string `env:"SEAL_KEYS" desc:"keyring sealing secrets at rest (AES-256-GCM): kid:base64key[,kid:base64key...], 32-byte keys; the first seals, all open (rotate by putting a new key first). Required in production; unset in development: an ephemeral key, so sealed secrets do not open after a restart" secret:"true"`
}

// Environment tells a development run from production.
type Environment string

// The environments a service runs in.
const (
	Production  Environment = "production"
	Development Environment = "development"
)

// UnmarshalText accepts development or production only, so a typo cannot relax production.
func (e *Environment) UnmarshalText(b []byte) error {
	switch v := Environment(strings.ToLower(strings.TrimSpace(string(b)))); v {
	case Production, Development:
		*e = v
		return nil
	}
	return fmt.Errorf("APP_ENV is %q, want development or production", b)
}

// IsDevelopment reports whether e is a development run; anything else counts as production.
func (e Environment) IsDevelopment() bool { return e == Development }

// PoolSize is the bound of a database pool: a whole number of connections, at least one.
type PoolSize int32

// UnmarshalText refuses what would leave the pool without a bound of its own (zero, negative).
func (n *PoolSize) UnmarshalText(b []byte) error {
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 32)
	if err != nil || v < 1 {
		return fmt.Errorf("DB_MAX_CONNS is %q, want a whole number of connections, at least 1", b)
	}
	*n = PoolSize(v)
	return nil
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
