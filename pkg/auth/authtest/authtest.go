// Package authtest gives tests the credentials they present to a service and the configuration
// that makes the service accept them: JWTs of a test issuer (HS256 with a shared secret, or
// ES256 with its key served as a JWKS, as in production) and service tokens with their hashes.
// Tests and test harnesses import it; production code never does.
package authtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/config"
)

// Issuer is a test identity provider. Register service tokens and serve the JWKS before taking
// its configuration (Config, Env, Configure, Authenticator): they describe it as it is then.
type Issuer struct {
	iss, aud string
	secret   string // HS256; hex, so it travels in an environment variable unchanged
	key      *ecdsa.PrivateKey
	keyID    string
	jwksURL  string
	services []auth.ServiceToken
}

// New returns an issuer with a fresh HS256 secret and a fresh ES256 key.
func New(t testing.TB) *Issuer {
	t.Helper()
	secret := make([]byte, auth.MinHS256SecretLen)
	if _, err := rand.Read(secret); err != nil {
		t.Fatalf("authtest: secret: %v", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("authtest: ES256 key: %v", err)
	}
	return &Issuer{iss: "videotpl-test", aud: "videotpl", secret: hex.EncodeToString(secret), key: key,
		keyID: uuid.NewString()}
}

// ServiceToken registers a service token with a name and scopes and returns its value.
func (i *Issuer) ServiceToken(t testing.TB, name string, scopes ...string) string {
	t.Helper()
	token, err := auth.GenerateServiceToken()
	if err != nil {
		t.Fatalf("authtest: service token: %v", err)
	}
	i.services = append(i.services, auth.ServiceToken{Name: name, SHA256: auth.HashServiceToken(token), Scopes: scopes})
	return token
}

// ServeJWKS publishes the issuer's ES256 public key as a JWKS on loopback until the test ends
// and returns its URL; from then on the configuration names it.
func (i *Issuer) ServeJWKS(t testing.TB) string {
	t.Helper()
	if i.jwksURL != "" {
		return i.jwksURL
	}
	raw, err := i.key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		t.Fatalf("authtest: public key: %v", err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	body, err := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": i.keyID,
		"x": b64(raw[1:33]), "y": b64(raw[33:]),
	}}})
	if err != nil {
		t.Fatalf("authtest: JWKS: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	i.jwksURL = srv.URL
	return i.jwksURL
}

// Config is the authenticator configuration that accepts the issuer's credentials.
func (i *Issuer) Config() auth.Config {
	return auth.Config{Issuer: i.iss, Audience: i.aud, HS256Secret: []byte(i.secret), JWKSURL: i.jwksURL,
		ServiceTokens: append([]auth.ServiceToken(nil), i.services...)}
}

// Authenticator builds an authenticator from Config.
func (i *Issuer) Authenticator(t testing.TB) *auth.Authenticator {
	t.Helper()
	a, err := auth.NewAuthenticator(i.Config())
	if err != nil {
		t.Fatalf("authtest: authenticator: %v", err)
	}
	return a
}

// Configure sets the authentication settings of a service's configuration, as its environment
// would.
func (i *Issuer) Configure(c *config.Common) {
	c.JWTIssuer, c.JWTAudience, c.JWTSecret, c.JWKSURL = i.iss, i.aud, i.secret, i.jwksURL
	c.ServiceTokens = i.serviceTokensSetting()
}

// Env is the environment (KEY=value) that configures a service process to accept the issuer's
// credentials.
func (i *Issuer) Env() []string {
	env := []string{"JWT_ISSUER=" + i.iss, "JWT_AUDIENCE=" + i.aud, "JWT_HS256_SECRET=" + i.secret}
	if i.jwksURL != "" {
		env = append(env, "JWT_JWKS_URL="+i.jwksURL)
	}
	if len(i.services) > 0 {
		env = append(env, "SERVICE_TOKENS="+i.serviceTokensSetting())
	}
	return env
}

// serviceTokensSetting is the SERVICE_TOKENS form: name:sha256:scope,scope;...
func (i *Issuer) serviceTokensSetting() string {
	entries := make([]string, len(i.services))
	for n, s := range i.services {
		entries[n] = s.Name + ":" + s.SHA256 + ":" + strings.Join(s.Scopes, ",")
	}
	return strings.Join(entries, ";")
}

// Claim shapes a token minted by Token.
type Claim func(*token)

type token struct {
	sub, tenant uuid.UUID
	roles       []string
	aud         string
	ttl         time.Duration
	es256       bool
}

// Subject sets the user the token names (default a fresh one).
func Subject(id uuid.UUID) Claim { return func(c *token) { c.sub = id } }

// Tenant sets the user's tenant (default a fresh one).
func Tenant(id uuid.UUID) Claim { return func(c *token) { c.tenant = id } }

// Roles sets the roles claim (default none).
func Roles(roles ...string) Claim { return func(c *token) { c.roles = roles } }

// ExpiresIn sets the lifetime (default an hour); a negative one mints an expired token.
func ExpiresIn(d time.Duration) Claim { return func(c *token) { c.ttl = d } }

// Audience sets the aud claim (default the one the configuration expects).
func Audience(aud string) Claim { return func(c *token) { c.aud = aud } }

// ViaJWKS signs with the issuer's ES256 key, which a service finds through ServeJWKS, instead
// of the HS256 secret.
func ViaJWKS() Claim { return func(c *token) { c.es256 = true } }

// Token mints a user's JWT: HS256 with the issuer's secret unless ViaJWKS is given.
func (i *Issuer) Token(t testing.TB, claims ...Claim) string {
	t.Helper()
	c := token{sub: uuid.New(), tenant: uuid.New(), aud: i.aud, ttl: time.Hour}
	for _, claim := range claims {
		claim(&c)
	}
	now := time.Now()
	body := struct {
		jwt.RegisteredClaims
		TenantID string   `json:"tenant_id"`
		Roles    []string `json:"roles,omitempty"`
	}{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: i.iss, Subject: c.sub.String(), Audience: jwt.ClaimStrings{c.aud},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(c.ttl)), ID: uuid.NewString()},
		TenantID: c.tenant.String(),
		Roles:    c.roles,
	}
	var (
		signed string
		err    error
	)
	if c.es256 {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, body)
		tok.Header["kid"] = i.keyID
		signed, err = tok.SignedString(i.key)
	} else {
		signed, err = jwt.NewWithClaims(jwt.SigningMethodHS256, body).SignedString([]byte(i.secret))
	}
	if err != nil {
		t.Fatalf("authtest: sign: %v", err)
	}
	return signed
}

// Bearer is a request editor (the generated clients' RequestEditorFn) sending token.
func Bearer(token string) func(context.Context, *http.Request) error {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
}
