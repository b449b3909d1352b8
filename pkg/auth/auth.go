package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// ServiceTokenPrefix starts every service token; a bearer token without it is treated as a JWT.
const ServiceTokenPrefix = "svc_"

// MinHS256SecretLen is the shortest HS256 secret accepted (256 bits).
const MinHS256SecretLen = 32

// ErrInvalidToken is matched (errors.Is) by every verification failure. The message of a
// returned error is safe to show to the caller (it goes into WWW-Authenticate).
var ErrInvalidToken = errors.New("invalid token")

// TokenError is a verification failure with a caller-safe reason.
type TokenError struct {
	Reason string
	Err    error // the cause, for logs
}

func (e *TokenError) Error() string { return e.Reason }

// Unwrap exposes the cause.
func (e *TokenError) Unwrap() error { return e.Err }

// Is makes every TokenError match ErrInvalidToken.
func (e *TokenError) Is(target error) bool { return target == ErrInvalidToken }

func invalid(reason string, cause error) error { return &TokenError{Reason: reason, Err: cause} }

// ServiceToken is one configured opaque token: its sha256 (hex), a name for logs and audit, its
// scopes, and optionally the tenant it acts for.
type ServiceToken struct {
	Name     string
	SHA256   string
	Scopes   []string
	TenantID uuid.UUID
}

// Config configures an Authenticator. At least one of HS256Secret and JWKSURL is needed to
// accept JWTs; Issuer and Audience are then required and checked on every token.
type Config struct {
	Issuer   string
	Audience string
	// HS256Secret verifies HS256 tokens (development); at least MinHS256SecretLen bytes.
	HS256Secret []byte
	// JWKSURL is fetched for RS256/ES256 keys (production); keys are cached for JWKSRefresh and
	// refetched early when a token names an unknown key id.
	JWKSURL     string
	JWKSRefresh time.Duration // default 10 minutes
	HTTPClient  *http.Client  // for the JWKS; default a client with a 10 s timeout
	// ServiceTokens are the accepted service tokens.
	ServiceTokens []ServiceToken
	// Leeway tolerates clock skew on exp/nbf/iat.
	Leeway time.Duration
}

// Authenticator verifies bearer credentials. It is safe for concurrent use.
type Authenticator struct {
	cfg     Config
	methods []string
	jwks    *jwks
	tokens  []serviceToken
	cache   verifiedCache
}

type serviceToken struct {
	ServiceToken
	sum [sha256.Size]byte
}

// NewAuthenticator checks cfg and builds an Authenticator. It does not fetch the JWKS: keys are
// loaded on first use, so a service starts while its identity provider is down.
func NewAuthenticator(cfg Config) (*Authenticator, error) {
	a := &Authenticator{cfg: cfg}
	if len(cfg.HS256Secret) > 0 {
		if len(cfg.HS256Secret) < MinHS256SecretLen {
			return nil, fmt.Errorf("auth: HS256 secret must be at least %d bytes", MinHS256SecretLen)
		}
		a.methods = append(a.methods, jwt.SigningMethodHS256.Alg())
	}
	if cfg.JWKSURL != "" {
		client := cfg.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: 10 * time.Second}
		}
		refresh := cfg.JWKSRefresh
		if refresh <= 0 {
			refresh = 10 * time.Minute
		}
		a.jwks = newJWKS(cfg.JWKSURL, client, refresh)
		a.methods = append(a.methods, jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg())
	}
	if len(a.methods) > 0 && (cfg.Issuer == "" || cfg.Audience == "") {
		return nil, errors.New("auth: issuer and audience are required to verify JWTs")
	}
	for i, t := range cfg.ServiceTokens {
		raw, err := hex.DecodeString(t.SHA256)
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("auth: service token %d (%q): sha256 must be 64 hex digits", i, t.Name)
		}
		if t.Name == "" {
			return nil, fmt.Errorf("auth: service token %d has no name", i)
		}
		st := serviceToken{ServiceToken: t}
		copy(st.sum[:], raw)
		a.tokens = append(a.tokens, st)
	}
	return a, nil
}

// AcceptsJWT reports whether a JWT verification method is configured.
func (a *Authenticator) AcceptsJWT() bool { return len(a.methods) > 0 }

type claims struct {
	jwt.RegisteredClaims
	TenantID string   `json:"tenant_id"`
	Roles    []string `json:"roles,omitempty"`
}

// VerifyJWT checks signature, algorithm, iss, aud, exp (required) and nbf of token and returns the
// user it names. ctx bounds a JWKS fetch.
func (a *Authenticator) VerifyJWT(ctx context.Context, token string) (Principal, error) {
	if !a.AcceptsJWT() {
		return Principal{}, invalid("user tokens are not accepted by this service", nil)
	}
	if strings.HasPrefix(token, ServiceTokenPrefix) {
		return Principal{}, invalid("a service token is not a user token", nil)
	}
	if p, ok := a.cache.get(token, time.Now(), a.cfg.Leeway); ok {
		return p, nil
	}
	parser := jwt.NewParser(
		jwt.WithValidMethods(a.methods),
		jwt.WithIssuer(a.cfg.Issuer),
		jwt.WithAudience(a.cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(a.cfg.Leeway),
	)
	var c claims
	_, err := parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) { return a.key(ctx, t) })
	if err != nil {
		return Principal{}, describe(err)
	}
	sub, err := uuid.Parse(c.Subject)
	if err != nil {
		return Principal{}, invalid("token subject is not a uuid", err)
	}
	tenant, err := uuid.Parse(c.TenantID)
	if err != nil {
		return Principal{}, invalid("token tenant_id is missing or not a uuid", err)
	}
	p := Principal{Kind: User, UserID: sub, TenantID: tenant, Roles: c.Roles}
	entry := verifiedToken{principal: p, expires: c.ExpiresAt.Time}
	if c.NotBefore != nil {
		entry.notBefore = c.NotBefore.Time
	}
	a.cache.put(token, entry)
	return p, nil
}

// key picks the verification key for t; the algorithm family decides where the key comes from,
// so an HS256 token can never be checked against a public key (algorithm confusion).
func (a *Authenticator) key(ctx context.Context, t *jwt.Token) (any, error) {
	switch t.Method.(type) {
	case *jwt.SigningMethodHMAC:
		if len(a.cfg.HS256Secret) == 0 {
			return nil, errors.New("HS256 is not accepted")
		}
		return a.cfg.HS256Secret, nil
	case *jwt.SigningMethodRSA, *jwt.SigningMethodECDSA:
		if a.jwks == nil {
			return nil, errors.New("no JWKS configured")
		}
		kid, _ := t.Header["kid"].(string)
		return a.jwks.key(ctx, kid, t.Method.Alg())
	}
	return nil, fmt.Errorf("signing method %s is not accepted", t.Method.Alg())
}

// describe turns a jwt library error into a short caller-safe reason.
func describe(err error) error {
	reasons := []struct {
		target error
		reason string
	}{
		{jwt.ErrTokenMalformed, "token is malformed"},
		{jwt.ErrTokenExpired, "token is expired"},
		{jwt.ErrTokenNotValidYet, "token is not valid yet"},
		{jwt.ErrTokenUsedBeforeIssued, "token is used before it was issued"},
		{jwt.ErrTokenInvalidAudience, "token audience is not accepted"},
		{jwt.ErrTokenInvalidIssuer, "token issuer is not accepted"},
		{jwt.ErrTokenRequiredClaimMissing, "token is missing a required claim"},
		{jwt.ErrTokenSignatureInvalid, "token signature is invalid"},
		{jwt.ErrTokenUnverifiable, "token cannot be verified"},
	}
	for _, r := range reasons {
		if errors.Is(err, r.target) {
			return invalid(r.reason, err)
		}
	}
	return invalid("token is invalid", err)
}

// VerifyServiceToken checks token against the configured service tokens by sha256 in constant
// time (every configured token is compared, whatever matches).
func (a *Authenticator) VerifyServiceToken(token string) (Principal, error) {
	if !strings.HasPrefix(token, ServiceTokenPrefix) {
		return Principal{}, invalid("not a service token", nil)
	}
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range a.tokens {
		if subtle.ConstantTimeCompare(sum[:], a.tokens[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Principal{}, invalid("service token is not recognised", nil)
	}
	t := a.tokens[found]
	return Principal{Kind: Service, Name: t.Name, Scopes: t.Scopes, TenantID: t.TenantID}, nil
}

// HashServiceToken returns the hex sha256 of token, the form in which tokens are configured.
func HashServiceToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// GenerateServiceToken returns a fresh random service token ("svc_" + 43 base64url characters).
func GenerateServiceToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return ServiceTokenPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// ParseServiceTokens parses the environment form of service tokens:
// "name:sha256hex:scope1,scope2;name2:sha256hex:scope3". Scopes may contain colons
// ("content:admin"): everything after the second colon is the scope list. An item
// "tenant=<uuid>" in the list binds the token to a tenant. Blank input gives none.
func ParseServiceTokens(spec string) ([]ServiceToken, error) {
	var out []ServiceToken
	for i, entry := range strings.Split(spec, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		parts := strings.SplitN(entry, ":", 3)
		if len(parts) < 2 {
			return nil, fmt.Errorf("auth: service token entry %d: want name:sha256:scopes", i+1)
		}
		t := ServiceToken{Name: strings.TrimSpace(parts[0]), SHA256: strings.ToLower(strings.TrimSpace(parts[1]))}
		if t.Name == "" {
			return nil, fmt.Errorf("auth: service token entry %d: empty name", i+1)
		}
		if raw, err := hex.DecodeString(t.SHA256); err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("auth: service token %q: sha256 must be 64 hex digits", t.Name)
		}
		if len(parts) == 3 {
			for s := range strings.SplitSeq(parts[2], ",") {
				s = strings.TrimSpace(s)
				if tenant, ok := strings.CutPrefix(s, "tenant="); ok {
					id, err := uuid.Parse(tenant)
					if err != nil {
						return nil, fmt.Errorf("auth: service token %q: tenant is not a uuid", t.Name)
					}
					t.TenantID = id
				} else if s != "" {
					t.Scopes = append(t.Scopes, s)
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// MintJWT signs an HS256 user token, for the `token` CLI subcommand and tests.
func MintJWT(secret []byte, iss, aud string, sub, tenant uuid.UUID, roles []string, ttl time.Duration) (string, error) {
	if len(secret) < MinHS256SecretLen {
		return "", fmt.Errorf("auth: HS256 secret must be at least %d bytes", MinHS256SecretLen)
	}
	now := time.Now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    iss,
			Subject:   sub.String(),
			Audience:  jwt.ClaimStrings{aud},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			ID:        uuid.NewString(),
		},
		TenantID: tenant.String(),
		Roles:    roles,
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
}
