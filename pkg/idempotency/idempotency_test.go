package idempotency_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/idempotency"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
)

// spec is the test service: two operations that declare the Idempotency-Key header and one
// that does not.
const spec = `
openapi: 3.0.3
info: {title: idempotency test service, version: 1.0.0}
servers: [{url: http://localhost/v1}]
security: [{ServiceToken: []}, {BearerAuth: []}]
paths:
  /things:
    post:
      operationId: createThing
      parameters: [{$ref: "#/components/parameters/IdempotencyKey"}]
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, properties: {name: {type: string}}}}}
      responses:
        "201": {description: Created.}
  /things/{id}/notes:
    post:
      operationId: addNote
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {$ref: "#/components/parameters/IdempotencyKey"}
      requestBody:
        required: true
        content: {application/json: {schema: {type: object}}}
      responses:
        "201": {description: Created.}
  /counters:
    post:
      operationId: bumpCounter
      responses:
        "200": {description: Bumped.}
components:
  parameters:
    IdempotencyKey:
      name: Idempotency-Key
      in: header
      schema: {type: string}
  securitySchemes:
    BearerAuth: {type: http, scheme: bearer, bearerFormat: JWT}
    ServiceToken: {type: http, scheme: bearer}
`

type fixture struct {
	url    string
	keys   *idempotency.Keys
	issuer *authtest.Issuer
	token  string // service token "worker"
	// runs counts handler runs by request path.
	mu   sync.Mutex
	runs map[string]int
	// gate, when set, blocks the thing handler until it is closed; entered is signalled first.
	gate    chan struct{}
	entered chan struct{}
	// failNext makes the next thing handler answer 500 (or panic, with panicNext).
	failNext, panicNext atomic.Bool
	// clock shifts the keys' clock.
	clock atomic.Int64
}

func (f *fixture) ran(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[path]
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool, _ := pgtest.NewDB(t, idempotency.Migrations())
	f := &fixture{issuer: authtest.New(t), runs: map[string]int{}}
	f.token = f.issuer.ServiceToken(t, "worker")
	f.keys = idempotency.New(pool, idempotency.Options{TTL: time.Hour, LockTimeout: time.Minute,
		Now:    func() time.Time { return time.Now().Add(time.Duration(f.clock.Load())) },
		Logger: slog.New(slog.DiscardHandler)})
	e, err := httpx.New(httpx.Options{Service: "things", SpecDocument: []byte(spec), Auth: f.issuer.Authenticator(t),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.keys.Apply(e, []byte(spec)); err != nil {
		t.Fatal(err)
	}
	count := func(c echo.Context) int {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.runs[c.Request().URL.Path]++
		return f.runs[c.Request().URL.Path]
	}
	e.POST("/v1/things", func(c echo.Context) error {
		var in struct{ Name string }
		if err := c.Bind(&in); err != nil {
			return err
		}
		n := count(c)
		if f.gate != nil {
			f.entered <- struct{}{}
			<-f.gate
		}
		if f.panicNext.CompareAndSwap(true, false) {
			panic("the handler broke")
		}
		if f.failNext.CompareAndSwap(true, false) {
			return fmt.Errorf("a dependency failed")
		}
		if in.Name == "taken" {
			return echo.NewHTTPError(http.StatusConflict, "the name is taken")
		}
		c.Response().Header().Set(echo.HeaderLocation, fmt.Sprintf("/v1/things/%d", n))
		return c.JSON(http.StatusCreated, map[string]any{"name": in.Name, "run": n})
	})
	e.POST("/v1/things/:id/notes", func(c echo.Context) error {
		return c.JSON(http.StatusCreated, map[string]any{"run": count(c)})
	})
	e.POST("/v1/counters", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"run": count(c)})
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

type answer struct {
	status   int
	body     string
	location string
}

func (f *fixture) post(t *testing.T, token, path, key, body string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set(idempotency.Header, key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: res.StatusCode, body: string(b), location: res.Header.Get("Location")}
}

// problemField is the field named by the first error of a problem body.
func problemField(t *testing.T, body string) string {
	t.Helper()
	var p struct {
		Errors []struct{ Field string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(body), &p); err != nil || len(p.Errors) == 0 {
		t.Fatalf("not a problem naming a field: %s", body)
	}
	return p.Errors[0].Field
}

func TestIdempotencyKeys(t *testing.T) {
	f := newFixture(t)
	newKey := func() string { return "k-" + uuid.NewString() }

	t.Run("a retry with the same key and body gets the first answer and the handler runs once", func(t *testing.T) {
		key := newKey()
		before := f.ran("/v1/things")
		first := f.post(t, f.token, "/v1/things", key, `{"name":"a"}`)
		if first.status != http.StatusCreated || first.location == "" {
			t.Fatalf("first: %+v", first)
		}
		again := f.post(t, f.token, "/v1/things", key, `{"name":"a"}`)
		if again != first {
			t.Fatalf("retry answered %+v, want the first answer %+v", again, first)
		}
		if got := f.ran("/v1/things") - before; got != 1 {
			t.Fatalf("the handler ran %d times, want 1", got)
		}
	})

	t.Run("a final 4xx answer is replayed too", func(t *testing.T) {
		key := newKey()
		first := f.post(t, f.token, "/v1/things", key, `{"name":"taken"}`)
		if first.status != http.StatusConflict {
			t.Fatalf("first: %+v", first)
		}
		before := f.ran("/v1/things")
		if again := f.post(t, f.token, "/v1/things", key, `{"name":"taken"}`); again != first || f.ran("/v1/things") != before {
			t.Fatalf("retry answered %+v after running the handler again; want the first answer %+v", again, first)
		}
	})

	t.Run("the same key with another body, path or query is 422", func(t *testing.T) {
		key := newKey()
		if a := f.post(t, f.token, "/v1/things/x/notes", key, `{"text":"a"}`); a.status != http.StatusCreated {
			t.Fatalf("first: %+v", a)
		}
		for _, path := range []string{"/v1/things/y/notes", "/v1/things/x/notes?draft=1"} {
			if a := f.post(t, f.token, path, key, `{"text":"a"}`); a.status != http.StatusUnprocessableEntity {
				t.Fatalf("%s with the same key: %+v, want 422", path, a)
			}
		}
		before := f.ran("/v1/things/x/notes")
		a := f.post(t, f.token, "/v1/things/x/notes", key, `{"text":"b"}`)
		if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "Idempotency-Key") {
			t.Fatalf("another body with the same key: %+v, want a 422 problem naming the key", a)
		}
		if f.ran("/v1/things/x/notes") != before {
			t.Fatal("the handler ran for a reused key")
		}
	})

	t.Run("of 20 concurrent first uses of a key exactly one runs, the others get 409", func(t *testing.T) {
		key := newKey()
		f.gate, f.entered = make(chan struct{}), make(chan struct{}, 20)
		defer func() { f.gate, f.entered = nil, nil }()
		before := f.ran("/v1/things")
		answers := make(chan answer, 20)
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() { answers <- f.post(t, f.token, "/v1/things", key, `{"name":"c"}`) })
		}
		<-f.entered // the one request that runs is in the handler
		conflicts := 0
		for conflicts < 19 {
			a := <-answers
			if a.status != http.StatusConflict {
				t.Fatalf("a concurrent retry answered %+v while the first was in flight, want 409", a)
			}
			conflicts++
		}
		close(f.gate)
		wg.Wait()
		if a := <-answers; a.status != http.StatusCreated {
			t.Fatalf("the request that ran answered %+v", a)
		}
		if got := f.ran("/v1/things") - before; got != 1 {
			t.Fatalf("the handler ran %d times, want 1", got)
		}
	})

	t.Run("a 5xx or a panic releases the key, so the retry runs again", func(t *testing.T) {
		for _, breakIt := range []*atomic.Bool{&f.failNext, &f.panicNext} {
			key := newKey()
			breakIt.Store(true)
			if a := f.post(t, f.token, "/v1/things", key, `{"name":"d"}`); a.status != http.StatusInternalServerError {
				t.Fatalf("first: %+v, want 500", a)
			}
			before := f.ran("/v1/things")
			if a := f.post(t, f.token, "/v1/things", key, `{"name":"d"}`); a.status != http.StatusCreated {
				t.Fatalf("retry after a 500: %+v, want 201", a)
			}
			if f.ran("/v1/things") != before+1 {
				t.Fatal("the retry after a 500 did not run the handler")
			}
		}
	})

	t.Run("an expired key runs again and is purged", func(t *testing.T) {
		key := newKey()
		first := f.post(t, f.token, "/v1/things", key, `{"name":"e"}`)
		f.clock.Store(int64(2 * time.Hour))
		defer f.clock.Store(0)
		if a := f.post(t, f.token, "/v1/things", key, `{"name":"other"}`); a.status != http.StatusCreated || a == first {
			t.Fatalf("a request with an expired key: %+v, want a new 201", a)
		}
		other := newKey()
		f.clock.Store(0)
		f.post(t, f.token, "/v1/things", other, `{"name":"e"}`)
		f.clock.Store(int64(2 * time.Hour))
		n, err := f.keys.Purge(context.Background())
		if err != nil || n < 1 {
			t.Fatalf("purge deleted %d keys (%v), want at least the expired one", n, err)
		}
	})

	t.Run("the keys of two callers do not collide", func(t *testing.T) {
		key := newKey()
		users := []string{
			f.issuer.Token(t, authtest.Subject(uuid.New()), authtest.Tenant(uuid.New())),
			f.issuer.Token(t, authtest.Subject(uuid.New()), authtest.Tenant(uuid.New())),
			f.token,
		}
		before := f.ran("/v1/things")
		for _, tok := range users {
			if a := f.post(t, tok, "/v1/things", key, `{"name":"f"}`); a.status != http.StatusCreated {
				t.Fatalf("%+v", a)
			}
		}
		if got := f.ran("/v1/things") - before; got != len(users) {
			t.Fatalf("the handler ran %d times for %d callers sharing a key, want once each", got, len(users))
		}
	})

	t.Run("a malformed key is a 400 naming the header", func(t *testing.T) {
		for _, key := range []string{strings.Repeat("k", 256), "caf\u00e9", "tab\there"} {
			a := f.post(t, f.token, "/v1/things", key, `{"name":"g"}`)
			if a.status != http.StatusBadRequest || problemField(t, a.body) != "header.Idempotency-Key" {
				t.Fatalf("key %q: %+v, want a 400 naming header.Idempotency-Key", key, a)
			}
		}
	})

	t.Run("an operation without the header parameter ignores a key", func(t *testing.T) {
		key := newKey()
		before := f.ran("/v1/counters")
		for range 2 {
			if a := f.post(t, f.token, "/v1/counters", key, ``); a.status != http.StatusOK {
				t.Fatalf("%+v", a)
			}
		}
		if f.ran("/v1/counters") != before+2 {
			t.Fatal("an operation that does not declare the key replayed an answer")
		}
	})

	t.Run("a request without a key runs every time", func(t *testing.T) {
		before := f.ran("/v1/things")
		f.post(t, f.token, "/v1/things", "", `{"name":"h"}`)
		f.post(t, f.token, "/v1/things", "", `{"name":"h"}`)
		if f.ran("/v1/things") != before+2 {
			t.Fatal("requests without a key were deduplicated")
		}
	})
}
