package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func TestSignMatchesTheStandardWebhooksReferenceVector(t *testing.T) {
	// The example of the Standard Webhooks specification.
	sig, err := domain.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; sig != want {
		t.Fatalf("signature = %s, want %s", sig, want)
	}
}

func TestDuringARotationBothSecretsSignNewestFirst(t *testing.T) {
	oldSecret, _ := domain.NewSecret()
	newSecret, _ := domain.NewSecret()
	now := time.Now()
	exp := now.Add(domain.SecretOverlap)
	ep := domain.Endpoint{Secret: newSecret, PreviousSecret: oldSecret, PreviousSecretExpiresAt: &exp}
	secrets := ep.SigningSecrets(now)
	header, err := domain.SignatureHeader(secrets, "evt", now, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Fields(header)
	if len(parts) != 2 {
		t.Fatalf("header %q, want two signatures", header)
	}
	if !domain.Verify(newSecret, "evt", now, []byte("{}"), parts[0]) || !domain.Verify(oldSecret, "evt", now, []byte("{}"), parts[1]) {
		t.Errorf("signatures are not new first, old second: %q", header)
	}
	if got := ep.SigningSecrets(exp.Add(time.Second)); len(got) != 1 || got[0] != newSecret {
		t.Errorf("after the overlap the previous secret still signs")
	}
}

func TestSigningKeysSignAsTheEndpointsSecretsDoAtTheSameInstant(t *testing.T) {
	current, _ := domain.NewSecret()
	previous, _ := domain.NewSecret()
	now := time.Unix(1700000000, 0)
	exp := now.Add(domain.SecretOverlap)
	endpoints := []struct {
		name string
		ep   domain.Endpoint
	}{
		{"one secret", domain.Endpoint{Secret: current}},
		{"rotated", domain.Endpoint{Secret: current, PreviousSecret: previous, PreviousSecretExpiresAt: &exp}},
		{"rotated without an expiry", domain.Endpoint{Secret: current, PreviousSecret: previous}},
		{"the reference vector's", domain.Endpoint{Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}},
	}
	for _, c := range endpoints {
		t.Run(c.name, func(t *testing.T) {
			keys, err := c.ep.SigningKeys()
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Time{now, exp.Add(-time.Second), exp, exp.Add(time.Hour)} {
				for _, body := range [][]byte{[]byte(`{"test": 2432232314}`), {}} {
					want, err := domain.SignatureHeader(c.ep.SigningSecrets(at), "msg_p5jXN8AQM9LWM0D4loKWxJek", at, body)
					if err != nil {
						t.Fatal(err)
					}
					if got, err := keys.SignatureHeader("msg_p5jXN8AQM9LWM0D4loKWxJek", at, body); err != nil || got != want {
						t.Errorf("at %v: %q, %v; the secrets sign %q", at, got, err, want)
					}
				}
			}
		})
	}
}

func TestSigningKeysFailWhereTheSecretsFailToSign(t *testing.T) {
	good, _ := domain.NewSecret()
	now := time.Now()
	exp := now.Add(time.Hour)
	if _, err := (domain.Endpoint{Secret: "not-a-secret"}).SigningKeys(); err == nil {
		t.Error("a current secret without the whsec_ prefix gave keys")
	}
	keys, err := domain.Endpoint{Secret: good, PreviousSecret: "whsec_%%%", PreviousSecretExpiresAt: &exp}.SigningKeys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.SignatureHeader("evt", now, nil); err == nil {
		t.Error("a previous secret that does not decode signed during the overlap")
	}
	if _, err := keys.SignatureHeader("evt", exp, nil); err != nil {
		t.Errorf("a previous secret that does not decode failed signing after the overlap: %v", err)
	}
}

func BenchmarkSignatureHeader(b *testing.B) {
	secret, _ := domain.NewSecret()
	ep := domain.Endpoint{Secret: secret}
	body := []byte(strings.Repeat("x", 600))
	now := time.Now()
	b.Run("secrets", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := domain.SignatureHeader(ep.SigningSecrets(now), "0192f5c4-8a3e-7c1d-9b2a-5e6f7a8b9c0d", now, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("keys", func(b *testing.B) {
		b.ReportAllocs()
		keys, _ := ep.SigningKeys()
		for range b.N {
			if _, err := keys.SignatureHeader("0192f5c4-8a3e-7c1d-9b2a-5e6f7a8b9c0d", now, body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestNewSecretsAreWhsecBase64Of32Bytes(t *testing.T) {
	s, err := domain.NewSecret()
	if err != nil || !strings.HasPrefix(s, "whsec_") || len(s) != len("whsec_")+44 {
		t.Fatalf("secret %q err %v", s, err)
	}
}

func TestEventTypeFilters(t *testing.T) {
	cases := []struct {
		filter []string
		event  string
		want   bool
	}{
		{[]string{"*"}, "identity.user.banned.v1", true},
		{[]string{"render.job.completed.v1"}, "render.job.completed.v1", true},
		{[]string{"render.job.completed.v1"}, "render.job.failed.v1", false},
		{[]string{"render.job.*"}, "render.job.failed.v1", true},
		{[]string{"render.job.*"}, "render.jobs.failed.v1", false},
		{[]string{"render.*"}, "render.snapshot.ready.v1", true},
		{[]string{"*"}, "render.job.progress.v1", false},
	}
	for _, tc := range cases {
		if got := domain.MatchesEventType(tc.filter, tc.event); got != tc.want {
			t.Errorf("%v matches %s = %v, want %v", tc.filter, tc.event, got, tc.want)
		}
	}
	if err := domain.ValidateEventTypes("body.event_types", []string{"render.job.*", "Bad Type"}); errs.KindOf(err) != errs.Invalid {
		t.Errorf("a malformed filter is accepted: %v", err)
	}
	if err := domain.ValidateEventTypes("body.event_types", nil); err == nil {
		t.Error("an empty filter is accepted")
	}
}

func TestRetriesFollowTheScheduleWithJitterThenStop(t *testing.T) {
	p := domain.RetryPolicy{Schedule: domain.DefaultRetrySchedule}
	if p.MaxAttempts() != 8 {
		t.Fatalf("max attempts = %d, want 8", p.MaxAttempts())
	}
	for i, base := range domain.DefaultRetrySchedule {
		d, ok := p.NextDelay(i + 1)
		if !ok || d < base/2 || d >= base*3/2 {
			t.Errorf("delay after attempt %d = %v (ok %v), want within [%v, %v)", i+1, d, ok, base/2, base*3/2)
		}
	}
	if _, ok := p.NextDelay(8); ok {
		t.Error("a ninth attempt is scheduled")
	}
}
