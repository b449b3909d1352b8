package domain

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTheBackoffOfARunJobDoublesUpToItsBound(t *testing.T) {
	p := RunJobPolicy{Backoff: time.Second, MaxBackoff: 5 * time.Second}
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 40: 5 * time.Second} {
		if got := p.Delay(attempt); got != want {
			t.Errorf("delay after attempt %d = %s, want %s", attempt, got, want)
		}
	}
}

type modelErr struct{ retryable bool }

func (e modelErr) Error() string   { return "model call failed" }
func (e modelErr) Retryable() bool { return e.retryable }

func TestOnlyModelFailuresThatCanPassAreRetried(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"a retryable failure", modelErr{true}, true},
		{"a retryable failure, wrapped", fmt.Errorf("primary: %w", modelErr{true}), true},
		{"a refusal", modelErr{false}, false},
		{"no failure", nil, false},
		{"any other error", errors.New("database unavailable"), false},
	}
	for _, c := range cases {
		if got := RetryableModelError(c.err); got != c.want {
			t.Errorf("%s: retryable = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAFailureReasonIsCutToItsBound(t *testing.T) {
	long := strings.Repeat("é", MaxFailureReason+10)
	if got := CutFailureReason(long); utf8.RuneCountInString(got) != MaxFailureReason || !strings.HasSuffix(got, "…") {
		t.Fatalf("cut to %d characters", utf8.RuneCountInString(got))
	}
	if got := CutFailureReason("short"); got != "short" {
		t.Fatalf("a short reason changed: %q", got)
	}
}
