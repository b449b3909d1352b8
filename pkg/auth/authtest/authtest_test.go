package authtest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/config"
)

// TestEveryFormOfTheConfigurationAcceptsTheIssuersCredentials checks the three ways a service is
// configured (auth.Config, config.Common, the environment) against the issuer's tokens.
func TestEveryFormOfTheConfigurationAcceptsTheIssuersCredentials(t *testing.T) {
	iss := authtest.New(t)
	svc := iss.ServiceToken(t, "render-farm", "content:admin", "content:read")
	iss.ServeJWKS(t)

	var common config.Common
	iss.Configure(&common)
	fromCommon, err := auth.FromConfig(common)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range iss.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var fromEnv config.Common
	if err := config.Load(&fromEnv); err != nil {
		t.Fatal(err)
	}
	fromEnvAuth, err := auth.FromConfig(fromEnv)
	if err != nil {
		t.Fatal(err)
	}
	authenticators := map[string]*auth.Authenticator{
		"auth.Config": iss.Authenticator(t), "config.Common": fromCommon, "environment": fromEnvAuth}

	user, tenant := uuid.New(), uuid.New()
	for name, a := range authenticators {
		t.Run(name, func(t *testing.T) {
			for _, tok := range []string{
				iss.Token(t, authtest.Subject(user), authtest.Tenant(tenant), authtest.Roles(auth.AdminRole)),
				iss.Token(t, authtest.Subject(user), authtest.Tenant(tenant), authtest.Roles(auth.AdminRole), authtest.ViaJWKS()),
			} {
				p, err := a.VerifyJWT(context.Background(), tok)
				if err != nil || p.UserID != user || p.TenantID != tenant || !p.HasRole(auth.AdminRole) {
					t.Errorf("token refused or misread: %+v, %v", p, err)
				}
			}
			p, err := a.VerifyServiceToken(svc)
			if err != nil || p.Name != "render-farm" || !slices.Equal(p.Scopes, []string{"content:admin", "content:read"}) {
				t.Errorf("service token refused or misread: %+v, %v", p, err)
			}
		})
	}
}

func TestTokensTheConfigurationMustRefuse(t *testing.T) {
	iss := authtest.New(t)
	a := iss.Authenticator(t)
	cases := map[string]string{
		"an expired token":                     iss.Token(t, authtest.ExpiresIn(-time.Minute)),
		"a token for another audience":         iss.Token(t, authtest.Audience("billing")),
		"a token signed with another secret":   authtest.New(t).Token(t),
		"a JWKS token while no JWKS is served": iss.Token(t, authtest.ViaJWKS()),
	}
	for name, tok := range cases {
		if _, err := a.VerifyJWT(context.Background(), tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: got %v, want it refused", name, err)
		}
	}
}

func TestBearerSetsTheAuthorizationHeader(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	if err := authtest.Bearer("svc_x")(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer svc_x" {
		t.Fatalf("Authorization %q", got)
	}
}
