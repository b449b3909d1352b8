package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
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

const (
	issuer   = "https://id.videotpl.test"
	audience = "videotpl"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

type tokenClaims struct {
	jwt.RegisteredClaims
	TenantID string   `json:"tenant_id,omitempty"`
	Roles    []string `json:"roles,omitempty"`
}

func validClaims(sub, tenant uuid.UUID) tokenClaims {
	now := time.Now()
	return tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: issuer, Audience: jwt.ClaimStrings{audience}, Subject: sub.String(),
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
		},
		TenantID: tenant.String(),
		Roles:    []string{"admin"},
	}
}

func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, c tokenClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return s
}

func TestVerifyJWTWithSharedSecret(t *testing.T) {
	a, err := auth.NewAuthenticator(auth.Config{Issuer: issuer, Audience: audience, HS256Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	sub, tenant := uuid.New(), uuid.New()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)

	tests := []struct {
		name   string
		token  func() string
		reason string // "" = accepted
	}{
		{"a valid token is accepted", func() string {
			return sign(t, jwt.SigningMethodHS256, secret, "", validClaims(sub, tenant))
		}, ""},
		{"a minted token is accepted", func() string {
			s, err := auth.MintJWT(secret, issuer, audience, sub, tenant, []string{"admin"}, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, ""},
		{"an expired token is refused", func() string {
			c := validClaims(sub, tenant)
			c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-time.Minute))
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token is expired"},
		{"a token without exp is refused", func() string {
			c := validClaims(sub, tenant)
			c.ExpiresAt = nil
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token is missing a required claim"},
		{"a token signed with another secret is refused", func() string {
			return sign(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-!!"), "", validClaims(sub, tenant))
		}, "token signature is invalid"},
		{"a token for another audience is refused", func() string {
			c := validClaims(sub, tenant)
			c.Audience = jwt.ClaimStrings{"someone-else"}
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token audience is not accepted"},
		{"a token from another issuer is refused", func() string {
			c := validClaims(sub, tenant)
			c.Issuer = "https://evil.test"
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token issuer is not accepted"},
		{"a token not valid yet is refused", func() string {
			c := validClaims(sub, tenant)
			c.NotBefore = jwt.NewNumericDate(time.Now().Add(time.Hour))
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token is not valid yet"},
		{"an unsigned (alg none) token is refused", func() string {
			return sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", validClaims(sub, tenant))
		}, "token signature is invalid"},
		{"an RS256 token is refused when no JWKS is configured", func() string {
			return sign(t, jwt.SigningMethodRS256, rsaKey, "k1", validClaims(sub, tenant))
		}, "token signature is invalid"},
		{"a token without tenant_id is refused", func() string {
			c := validClaims(sub, tenant)
			c.TenantID = ""
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token tenant_id is missing or not a uuid"},
		{"a token whose subject is not a uuid is refused", func() string {
			c := validClaims(sub, tenant)
			c.Subject = "alice"
			return sign(t, jwt.SigningMethodHS256, secret, "", c)
		}, "token subject is not a uuid"},
		{"garbage is refused", func() string { return "not.a.jwt" }, "token is malformed"},
		{"a service token is refused as a JWT", func() string { return "svc_abc" }, "a service token is not a user token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := a.VerifyJWT(context.Background(), tt.token())
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if p.Kind != auth.User || p.UserID != sub || p.TenantID != tenant || !p.HasRole("admin") {
					t.Fatalf("principal = %+v", p)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tt.reason)
			}
			if !errors.Is(err, auth.ErrInvalidToken) || err.Error() != tt.reason {
				t.Fatalf("err = %q, want %q", err, tt.reason)
			}
		})
	}
}

// jwksServer serves the public halves of the given keys and counts fetches.
func jwksServer(t *testing.T, keys map[string]any) (*httptest.Server, *int) {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	var set []map[string]string
	for kid, k := range keys {
		switch pub := k.(type) {
		case *rsa.PublicKey:
			set = append(set, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
				"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())})
		case *ecdsa.PublicKey:
			raw, err := pub.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, map[string]string{"kty": "EC", "kid": kid, "crv": "P-256",
				"x": b64(raw[1:33]), "y": b64(raw[33:])})
		}
	}
	fetches := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*fetches++
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": set})
	}))
	t.Cleanup(srv.Close)
	return srv, fetches
}

func TestVerifyJWTWithJWKS(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	strangerRSA, _ := rsa.GenerateKey(rand.Reader, 2048)
	strangerEC, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv, fetches := jwksServer(t, map[string]any{"rsa-1": &rsaKey.PublicKey, "ec-1": &ecKey.PublicKey})

	a, err := auth.NewAuthenticator(auth.Config{Issuer: issuer, Audience: audience, JWKSURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	sub, tenant := uuid.New(), uuid.New()
	pubDER, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)

	tests := []struct {
		name   string
		token  string
		accept bool
	}{
		{"an RS256 token signed by a published key is accepted", sign(t, jwt.SigningMethodRS256, rsaKey, "rsa-1", validClaims(sub, tenant)), true},
		{"an ES256 token signed by a published key is accepted", sign(t, jwt.SigningMethodES256, ecKey, "ec-1", validClaims(sub, tenant)), true},
		{"an RS256 token signed by another key under a published kid is refused", sign(t, jwt.SigningMethodRS256, strangerRSA, "rsa-1", validClaims(sub, tenant)), false},
		{"an ES256 token signed by another key under a published kid is refused", sign(t, jwt.SigningMethodES256, strangerEC, "ec-1", validClaims(sub, tenant)), false},
		{"a token naming an unknown kid is refused", sign(t, jwt.SigningMethodRS256, rsaKey, "nobody", validClaims(sub, tenant)), false},
		{"an ES256 header over an RSA kid is refused", sign(t, jwt.SigningMethodES256, ecKey, "rsa-1", validClaims(sub, tenant)), false},
		{"an HS256 token keyed with the public RSA key (alg confusion) is refused", sign(t, jwt.SigningMethodHS256, pubDER, "rsa-1", validClaims(sub, tenant)), false},
		{"an unsigned token is refused", sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "rsa-1", validClaims(sub, tenant)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := a.VerifyJWT(context.Background(), tt.token)
			if tt.accept {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if p.UserID != sub || p.TenantID != tenant {
					t.Fatalf("principal = %+v", p)
				}
			} else if err == nil {
				t.Fatal("accepted")
			}
		})
	}
	// The unknown kid may trigger one early refetch; keys are otherwise served from the cache.
	if *fetches > 2 {
		t.Fatalf("JWKS fetched %d times, want the cache to be used", *fetches)
	}
}

func TestServiceTokens(t *testing.T) {
	token, err := auth.GenerateServiceToken()
	if err != nil {
		t.Fatal(err)
	}
	tenant := uuid.New()
	tokens, err := auth.ParseServiceTokens("renderer:" + auth.HashServiceToken(token) + ":content:admin, content:read,tenant=" + tenant.String() +
		"; other:" + auth.HashServiceToken("svc_other") + ":")
	if err != nil {
		t.Fatal(err)
	}
	a, err := auth.NewAuthenticator(auth.Config{ServiceTokens: tokens})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a configured token is accepted with its name, scopes and tenant", func(t *testing.T) {
		p, err := a.VerifyServiceToken(token)
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != auth.Service || p.Name != "renderer" || p.TenantID != tenant || !p.IsAdmin("content:admin") || !p.HasScope("content:read") {
			t.Fatalf("principal = %+v", p)
		}
	})
	t.Run("a second configured token is told apart from the first", func(t *testing.T) {
		p, err := a.VerifyServiceToken("svc_other")
		if err != nil || p.Name != "other" || len(p.Scopes) != 0 || p.IsAdmin("content:admin") {
			t.Fatalf("principal = %+v, err = %v", p, err)
		}
	})
	for name, tok := range map[string]string{
		"an unknown token is refused":           "svc_unknown",
		"a token without the prefix is refused": strings.TrimPrefix(token, auth.ServiceTokenPrefix),
		"a JWT is refused as a service token":   "eyJhbGciOiJIUzI1NiJ9.e30.sig",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := a.VerifyServiceToken(tok); !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	t.Run("JWTs are refused when no JWT method is configured", func(t *testing.T) {
		s, _ := auth.MintJWT(secret, issuer, audience, uuid.New(), tenant, nil, time.Minute)
		if _, err := a.VerifyJWT(context.Background(), s); err == nil {
			t.Fatal("accepted")
		}
	})
}

func TestParseServiceTokensRejectsBadEntries(t *testing.T) {
	good := auth.HashServiceToken("svc_x")
	for name, spec := range map[string]string{
		"a missing hash":      "name",
		"a short hash":        "name:abcd:scope",
		"an empty name":       ":" + good + ":scope",
		"a tenant not a uuid": "name:" + good + ":scope,tenant=tenant-1",
		"a non-hex hash":      "name:" + strings.Repeat("z", 64) + ":scope",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := auth.ParseServiceTokens(spec); err == nil {
				t.Fatalf("%q accepted", spec)
			}
		})
	}
	if toks, err := auth.ParseServiceTokens("  "); err != nil || len(toks) != 0 {
		t.Fatalf("blank spec: %v %v", toks, err)
	}
}

func TestNewAuthenticatorRefusesWeakConfig(t *testing.T) {
	for name, cfg := range map[string]auth.Config{
		"a short secret":           {Issuer: issuer, Audience: audience, HS256Secret: []byte("short")},
		"a secret without issuer":  {Audience: audience, HS256Secret: secret},
		"a JWKS without audience":  {Issuer: issuer, JWKSURL: "http://127.0.0.1:1/jwks"},
		"a malformed token digest": {ServiceTokens: []auth.ServiceToken{{Name: "x", SHA256: "00"}}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := auth.NewAuthenticator(cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestPrincipalTravelsInContext(t *testing.T) {
	if _, ok := auth.FromContext(context.Background()); ok {
		t.Fatal("principal in an empty context")
	}
	p := auth.Principal{Kind: auth.User, UserID: uuid.New(), Roles: []string{"editor"}}
	got, ok := auth.FromContext(auth.WithPrincipal(context.Background(), p))
	if !ok || got.UserID != p.UserID || got.IsAdmin("content:admin") {
		t.Fatalf("got %+v %v", got, ok)
	}
}

func TestAVerifiedTokenStillExpiresAndItsVariantsAreCheckedAgain(t *testing.T) {
	a, err := auth.NewAuthenticator(auth.Config{Issuer: issuer, Audience: audience, HS256Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	sub, tenant := uuid.New(), uuid.New()
	c := validClaims(sub, tenant)
	c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(1500 * time.Millisecond))
	tok := sign(t, jwt.SigningMethodHS256, secret, "", c)
	for i := 0; i < 2; i++ { // the second call is answered from the cache
		if p, err := a.VerifyJWT(context.Background(), tok); err != nil || p.UserID != sub {
			t.Fatalf("call %d: %v %+v", i, err, p)
		}
	}
	// A different signature on the same claims is a different token: verified from scratch.
	if _, err := a.VerifyJWT(context.Background(), tok[:len(tok)-2]+"AA"); err == nil {
		t.Fatal("a token with a tampered signature was accepted")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := a.VerifyJWT(context.Background(), tok); err != nil {
			break // expired, although it was verified (and cached) before
		}
		if time.Now().After(deadline) {
			t.Fatal("a cached token outlived its exp")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestFromConfigNeedsSomeCredentialAndParsesServiceTokens(t *testing.T) {
	if _, err := auth.FromConfig(config.Common{JWTIssuer: issuer, JWTAudience: audience}); err == nil {
		t.Fatal("a service without any credential method was built")
	}
	tok, _ := auth.GenerateServiceToken()
	a, err := auth.FromConfig(config.Common{ServiceTokens: "orchestrator:" + auth.HashServiceToken(tok) + ":content:admin"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.VerifyServiceToken(tok)
	if err != nil || p.Name != "orchestrator" || !p.HasScope("content:admin") {
		t.Fatalf("service token: %+v %v", p, err)
	}
}
