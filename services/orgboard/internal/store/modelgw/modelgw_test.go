package modelgw

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

const secretKey = "sk-test-SECRET-value-7f3a"

type seen struct {
	path, auth, azureKey string
	body                 map[string]any
}

func gateway(t *testing.T, status int, answer string, got *seen) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got != nil {
			got.path, got.auth, got.azureKey = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("api-key")
			b, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(b, &got.body)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCompletePostsChatCompletionsAndReadsTheFirstChoice(t *testing.T) {
	var got seen
	srv := gateway(t, 200, `{"model":"m-2024","choices":[{"message":{"role":"assistant","content":"Hello draft"}}]}`, &got)
	g := New(srv.Client(), time.Second)
	res, err := g.Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderCustom, Endpoint: srv.URL + "/", Model: "m", APIKey: secretKey},
		[]domain.ChatMessage{{Role: "system", Content: "sys"}, {Role: "user", Content: "do it"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello draft" || res.Model != "m-2024" {
		t.Fatalf("result = %+v", res)
	}
	if got.path != "/v1/chat/completions" || got.auth != "Bearer "+secretKey {
		t.Fatalf("request path %q auth %q", got.path, got.auth)
	}
	if got.body["model"] != "m" || len(got.body["messages"].([]any)) != 2 || got.body["stream"] != false {
		t.Fatalf("request body = %v", got.body)
	}
}

func TestCompleteJoinsTextPartsOfAnArrayContent(t *testing.T) {
	srv := gateway(t, 200, `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]}}]}`, nil)
	res, err := New(srv.Client(), time.Second).Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderVLLM, Endpoint: srv.URL, Model: "x"}, nil)
	if err != nil || res.Text != "ab" || res.Model != "x" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

func TestAzureSendsTheKeyInTheApiKeyHeader(t *testing.T) {
	var got seen
	srv := gateway(t, 200, `{"choices":[{"message":{"content":"ok"}}]}`, &got)
	if _, err := New(srv.Client(), time.Second).Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderAzureOpenAI, Endpoint: srv.URL + "/openai", Model: "d", APIKey: secretKey}, nil); err != nil {
		t.Fatal(err)
	}
	if got.azureKey != secretKey || got.auth != "" || got.path != "/openai/v1/chat/completions" {
		t.Fatalf("seen = %+v", got)
	}
}

func TestFailuresNameTheStatusButNeverTheKeyOrTheUpstreamMessage(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		retryable bool
	}{
		{"server error echoing the key", 500, `{"error":{"type":"server_error","message":"bad key ` + secretKey + `"}}`, true},
		{"unauthorized", 401, `{"error":{"code":"invalid_api_key","message":"Incorrect API key provided: ` + secretKey + `"}}`, false},
		{"not json", 502, `<html>` + secretKey + `</html>`, true},
		{"rate limited", 429, `{"error":{"type":"rate_limit"}}`, true},
		{"no choices", 200, `{"choices":[]}`, false},
		{"garbage", 200, `{{{`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := gateway(t, c.status, c.body, nil)
			_, err := New(srv.Client(), time.Second).Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderCustom, Endpoint: srv.URL, Model: "m", APIKey: secretKey}, nil)
			var me *Error
			if !errors.As(err, &me) || me.Status != c.status {
				t.Fatalf("err = %v, want *Error with status %d", err, c.status)
			}
			if strings.Contains(err.Error(), secretKey) || strings.Contains(err.Error(), "Incorrect") {
				t.Fatalf("error leaks: %v", err)
			}
			if domain.RetryableModelError(err) != c.retryable {
				t.Fatalf("retryable = %v, want %v", !c.retryable, c.retryable)
			}
		})
	}
}

func TestASlowServerFailsAtTheTimeLimit(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, err := New(srv.Client(), 50*time.Millisecond).Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderCustom, Endpoint: srv.URL, Model: "m"}, nil)
	var me *Error
	if !errors.As(err, &me) || !strings.Contains(me.Reason, "in time") || !domain.RetryableModelError(err) {
		t.Fatalf("err = %v (retryable %v), want a retryable timeout", err, domain.RetryableModelError(err))
	}
}

func TestStubAnswersDeterministicallyWithoutANetwork(t *testing.T) {
	g := New(&http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		t.Fatal("the stub must not use the network")
		return nil, nil
	})}, time.Second)
	msgs := []domain.ChatMessage{{Role: "user", Content: "# Product\nx\n\n# Work item\nTitle: Fix the login\nmore"}}
	a, err := g.Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderStub, Model: "demo"}, msgs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := g.Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderStub, Model: "demo"}, msgs)
	if a != b || !strings.Contains(a.Text, "Fix the login") || a.Model != "demo" {
		t.Fatalf("a = %+v, b = %+v", a, b)
	}
	c, _ := g.Complete(context.Background(), domain.ModelConnection{Provider: domain.ProviderStub, Model: "demo"}, []domain.ChatMessage{{Role: "user", Content: "other"}})
	if c.Text == a.Text {
		t.Fatal("different prompts must give different answers")
	}
}

func TestCompletionsURLs(t *testing.T) {
	if got := completionsURL(domain.ProviderGemini, domain.DefaultEndpoint(domain.ProviderGemini)); got != "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions" {
		t.Errorf("gemini url = %s", got)
	}
	if got := completionsURL(domain.ProviderOpenAI, domain.DefaultEndpoint(domain.ProviderOpenAI)); got != "https://api.openai.com/v1/chat/completions" {
		t.Errorf("openai url = %s", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
