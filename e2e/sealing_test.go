package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

func TestServicesThatSealSecretsRefuseToStartInProductionWithoutAKeyring(t *testing.T) {
	_, dbURL := pgtest.NewDB(t)
	issuer := authtest.New(t)
	for _, service := range []string{"orgboard", "renderevents"} {
		t.Run(service, func(t *testing.T) {
			// APP_ENV unset is production.
			env := append([]string{"DATABASE_URL=" + dbURL, "AMQP_URL=" + bustest.URL(), "HTTP_ADDR=" + freeAddr(t)},
				issuer.Env()...)
			p := startProcess(t, serviceBinary(t, service), env, "serve")
			if err := p.wait(t, 30*time.Second); err == nil {
				t.Fatalf("%s served without SEAL_KEYS in production", service)
			}
			if out := p.output(); !strings.Contains(out, "SEAL_KEYS") {
				t.Fatalf("the refusal does not name SEAL_KEYS: %s", out)
			}
		})
	}
}
