package cli_test

import (
	"bytes"
	"context"
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/cli"
	"github.com/videotpl/platform/pkg/config"
)

func TestDispatchRunsTheNamedCommandAndReportsUnknownOnes(t *testing.T) {
	var ran []string
	cmds := []cli.Command{
		{Name: "serve", Run: func(context.Context, []string) error { ran = append(ran, "serve"); return nil }},
		{Name: "fail", Run: func(context.Context, []string) error { return errors.New("boom") }},
	}
	vars := []config.Var{{Name: "HTTP_ADDR", Default: ":8081", Description: "listen address"}}
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"serve"}, 0, ""},
		{[]string{"fail"}, 1, "boom"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{nil, 2, "HTTP_ADDR"},
		{[]string{"help"}, 0, "serve"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		if code := cli.Dispatch(context.Background(), &stderr, "content", vars, c.args, cmds...); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), c.out) {
			t.Errorf("%v: output %q lacks %q", c.args, stderr.String(), c.out)
		}
	}
	if len(ran) != 1 {
		t.Fatalf("serve ran %d times, want 1", len(ran))
	}
}

func TestTokenCommandMintsAJWTTheServiceAccepts(t *testing.T) {
	common := config.Common{JWTIssuer: "iss", JWTAudience: "aud", JWTSecret: strings.Repeat("s", 32)}
	var out bytes.Buffer
	cmd := cli.TokenCommand(func() (config.Common, error) { return common, nil }, &out)
	sub := "0190b2a4-7c1e-7000-8000-000000000001"
	if err := cmd.Run(context.Background(), []string{"--sub", sub, "--roles", "admin,editor"}); err != nil {
		t.Fatal(err)
	}
	a, err := auth.NewAuthenticator(auth.Config{Issuer: "iss", Audience: "aud", HS256Secret: []byte(common.JWTSecret)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.VerifyJWT(context.Background(), strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("minted token refused: %v", err)
	}
	if p.UserID.String() != sub || !p.HasRole("admin") || !p.HasRole("editor") {
		t.Fatalf("principal %+v", p)
	}
}

func TestTokenCommandRefusesWithoutASecret(t *testing.T) {
	cmd := cli.TokenCommand(func() (config.Common, error) { return config.Common{}, nil }, &bytes.Buffer{})
	if err := cmd.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "JWT_HS256_SECRET") {
		t.Fatalf("want an error naming JWT_HS256_SECRET, got %v", err)
	}
}

func TestDefaultGCPercentYieldsToGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	cli.DefaultGCPercent(400)
	if got := debug.SetGCPercent(100); got != 400 {
		t.Errorf("without GOGC the GC percent is %d, want 400", got)
	}
	t.Setenv("GOGC", "50")
	cli.DefaultGCPercent(400)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set the GC percent became %d, want it left at 100", got)
	}
}
