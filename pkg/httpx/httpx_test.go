package httpx_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/buildinfo"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/telemetry"
)

// syncBuffer collects log output written by server goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// specDocument is the test service's contract as its file holds it.
func specDocument(t testing.TB) []byte {
	t.Helper()
	doc, err := os.ReadFile("testdata/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

type fixture struct {
	url    string
	logs   *syncBuffer
	userID uuid.UUID
	tenant uuid.UUID
	issuer *authtest.Issuer
	// svcToken is the "renderer" service token with content:admin; rdToken has no scopes.
	svcToken, rdToken string
	// uploadStarted is closed when the upload handler has read the first KiB of a file.
	uploadStarted chan struct{}
	// metricsURL serves the registry of the fixture's telemetry (what WithMetrics serves).
	metricsURL string
}

// jwt is a token of the fixture's user, an editor; claims adjust it.
func (f *fixture) jwt(t testing.TB, claims ...authtest.Claim) string {
	t.Helper()
	user := []authtest.Claim{authtest.Subject(f.userID), authtest.Tenant(f.tenant), authtest.Roles("editor")}
	return f.issuer.Token(t, append(user, claims...)...)
}

// newServer builds the test service: the spec's operations plus a few routes outside the spec
// that raise errors on purpose.
func newServer(t testing.TB, tune func(*httpx.Options)) *fixture {
	t.Helper()
	logs := &syncBuffer{}
	issuer := authtest.New(t)
	svcToken := issuer.ServiceToken(t, "renderer", "content:admin")
	rdToken := issuer.ServiceToken(t, "reader")
	tel, err := telemetry.Setup(context.Background(), "things", telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opts := httpx.Options{
		Service:      "things",
		Logger:       telemetry.NewLogger(logs, slog.LevelDebug, "things"),
		SpecDocument: specDocument(t),
		Auth:         issuer.Authenticator(t),
		Telemetry:    tel,
	}
	if tune != nil {
		tune(&opts)
	}
	e, err := httpx.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	who := func(c echo.Context) {
		if p, ok := auth.FromContext(c.Request().Context()); ok {
			c.Response().Header().Set("X-Principal", p.Kind.String()+":"+p.UserID.String()+":"+p.Name)
		}
	}
	e.GET("/v1/things", func(c echo.Context) error {
		who(c)
		c.Response().Header().Set("X-Page", c.QueryParam("page"))
		return c.JSON(http.StatusOK, map[string]any{"data": []any{}})
	})
	e.POST("/v1/things", func(c echo.Context) error {
		var in map[string]any
		if err := json.NewDecoder(c.Request().Body).Decode(&in); err != nil {
			return err
		}
		in["id"] = uuid.NewString()
		return c.JSON(http.StatusCreated, in)
	})
	e.GET("/v1/public", func(c echo.Context) error {
		who(c)
		return c.JSON(http.StatusOK, map[string]string{"hello": "world"})
	})
	e.POST("/v1/admin/servers", func(c echo.Context) error {
		who(c)
		return c.NoContent(http.StatusNoContent)
	})
	e.POST("/v1/admin/purge", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	e.GET("/v1/things/:id", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"id": c.Param("id"), "slug": "s"})
	})
	e.POST("/v1/things/:id/notes", func(c echo.Context) error {
		var in map[string]any
		if err := json.NewDecoder(c.Request().Body).Decode(&in); err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, in)
	})
	e.GET("/v1/things/:id/events", func(c echo.Context) error {
		res := c.Response()
		res.Header().Set("Content-Type", "text/event-stream")
		res.WriteHeader(http.StatusOK)
		tick := time.NewTicker(eventPace)
		defer tick.Stop()
		for i := range eventCount {
			if _, err := fmt.Fprintf(res, "data: %d\n\n", i); err != nil {
				return nil
			}
			res.Flush()
			<-tick.C
		}
		return nil
	})
	started := make(chan struct{})
	var once sync.Once
	e.POST("/v1/uploads", func(c echo.Context) error {
		mr, err := c.Request().MultipartReader()
		if err != nil {
			return errs.Wrap(errs.Invalid, "not a multipart body", err)
		}
		part, err := mr.NextPart()
		if err != nil {
			return errs.Wrap(errs.Invalid, "no file part", err)
		}
		head := make([]byte, 1024)
		if _, err := io.ReadFull(part, head); err != nil {
			return err
		}
		once.Do(func() { close(started) })
		n, err := io.Copy(io.Discard, part)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]int64{"bytes": n + int64(len(head))})
	})
	e.GET("/x/errs/:kind", func(c echo.Context) error {
		k, _ := strconv.Atoi(c.Param("kind"))
		if errs.Kind(k) == errs.Invalid {
			return errs.InvalidFields(errs.Field("body.slug", "is already taken"), errs.Field("query.tag", "is unknown"))
		}
		if errs.Kind(k) == errs.Internal {
			return errs.Wrap(errs.Internal, "db password is hunter2", errors.New("connection refused"))
		}
		if errs.Kind(k) == errs.Upstream {
			return errs.Wrap(errs.Upstream, "kind upstream", errors.New("dial gw.example: token=sk-cause"))
		}
		return errs.E(errs.Kind(k), "kind "+errs.Kind(k).String())
	})
	e.GET("/x/stream", func(c echo.Context) error {
		res := c.Response()
		res.Header().Set("Content-Type", "text/event-stream")
		res.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprint(res, "data: 1\n\ndata: 2\n\n")
		return nil
	})
	e.GET("/x/panic", func(c echo.Context) error { panic("secret internals: dsn=postgres://u:p@db") })
	e.GET("/x/plain-error", func(c echo.Context) error { return fmt.Errorf("pq: password authentication failed") })
	msrv := httptest.NewServer(httpx.MetricsHandler(tel.Registry))
	t.Cleanup(msrv.Close)
	return &fixture{url: httpxtest.Start(t, e), metricsURL: msrv.URL, logs: logs, userID: uuid.New(), tenant: uuid.New(), uploadStarted: started,
		issuer: issuer, svcToken: svcToken, rdToken: rdToken}
}

// The event stream of watchThing: eventCount events, one per eventPace.
const (
	eventCount = 8
	eventPace  = 250 * time.Millisecond
)

type reply struct {
	status  int
	header  http.Header
	problem httpx.Problem
	body    string
}

func do(t testing.TB, method, url, token, contentType, body string, header ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: string(raw)}
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != httpx.ProblemContentType {
			t.Fatalf("%s %s: status %d with Content-Type %q, want problem+json; body %s", method, url, resp.StatusCode, ct, raw)
		}
		if err := json.Unmarshal(raw, &r.problem); err != nil {
			t.Fatalf("problem body: %v: %s", err, raw)
		}
		if r.problem.Status != resp.StatusCode {
			t.Fatalf("problem status %d != %d", r.problem.Status, resp.StatusCode)
		}
		if id := resp.Header.Get("X-Request-Id"); r.problem.RequestID != id || id == "" {
			t.Fatalf("problem request_id %q, want the X-Request-Id %q", r.problem.RequestID, id)
		}
	}
	return r
}

func TestAuthenticationHonoursEachOperationsSecurity(t *testing.T) {
	f := newServer(t, nil)
	valid := f.jwt(t)
	tests := []struct {
		name, method, path, token string
		contentType, body         string
		header                    string // Authorization override
		status                    int
		challenge                 string // expected WWW-Authenticate for 401
		principal                 string // expected X-Principal prefix for 2xx
	}{
		{name: "a valid JWT reaches a secured operation", method: "GET", path: "/v1/things", token: valid,
			status: 200, principal: "user:" + f.userID.String()},
		{name: "no token on a secured operation is refused", method: "GET", path: "/v1/things",
			status: 401, challenge: `Bearer realm="things"`},
		{name: "an expired JWT is refused", method: "GET", path: "/v1/things", token: f.jwt(t, authtest.ExpiresIn(-time.Minute)),
			status: 401, challenge: `Bearer realm="things", error="invalid_token", error_description="token is expired"`},
		{name: "a wrongly signed JWT is refused", method: "GET", path: "/v1/things", token: authtest.New(t).Token(t),
			status: 401, challenge: `Bearer realm="things", error="invalid_token", error_description="token signature is invalid"`},
		{name: "a JWT for another audience is refused", method: "GET", path: "/v1/things", token: f.jwt(t, authtest.Audience("billing")),
			status: 401, challenge: `Bearer realm="things", error="invalid_token", error_description="token audience is not accepted"`},
		{name: "a service token is accepted where ServiceToken is one of the requirements", method: "GET", path: "/v1/things", token: f.svcToken,
			status: 200, principal: "service:" + uuid.Nil.String() + ":renderer"},
		{name: "an unknown service token is refused", method: "GET", path: "/v1/things", token: "svc_stolen",
			status: 401, challenge: `Bearer realm="things", error="invalid_token", error_description="service token is not recognised"`},
		{name: "a service token is accepted on a ServiceToken-only operation", method: "POST", path: "/v1/admin/servers", token: f.svcToken,
			status: 204, principal: "service:"},
		{name: "a valid JWT is refused on a ServiceToken-only operation", method: "POST", path: "/v1/admin/servers", token: valid,
			status: 401, challenge: `Bearer realm="things", error="invalid_token", error_description="user tokens are not accepted for this operation"`},
		{name: "a service token with the scope a requirement names is accepted", method: "POST", path: "/v1/admin/purge", token: f.svcToken,
			status: 204},
		{name: "a service token without the scope a requirement names is forbidden", method: "POST", path: "/v1/admin/purge", token: f.rdToken,
			status: 403, challenge: `Bearer realm="things", error="insufficient_scope", error_description="the token lacks scope 'content:admin'"`},
		{name: "a public operation needs no token", method: "GET", path: "/v1/public", status: 200},
		{name: "a public operation ignores a bad token", method: "GET", path: "/v1/public", token: "garbage", status: 200},
		{name: "a non-bearer Authorization header is refused", method: "GET", path: "/v1/things", header: "Basic dTpw",
			status: 401, challenge: `Bearer realm="things", error="invalid_token", error_description="the Authorization header does not carry a bearer token"`},
		{name: "an anonymous malformed request gets 401 before any validation", method: "POST", path: "/v1/things",
			contentType: "application/json", body: "{not json", status: 401, challenge: `Bearer realm="things"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []string
			if tt.header != "" {
				extra = []string{"Authorization", tt.header}
			}
			r := do(t, tt.method, f.url+tt.path, tt.token, tt.contentType, tt.body, extra...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if got := r.header.Get("WWW-Authenticate"); got != tt.challenge {
				t.Fatalf("WWW-Authenticate = %q, want %q", got, tt.challenge)
			}
			if tt.status == 401 && r.problem.Type != httpx.ProblemTypeBase+"unauthenticated" {
				t.Fatalf("problem type %q", r.problem.Type)
			}
			if got := r.header.Get("X-Principal"); !strings.HasPrefix(got, tt.principal) || (tt.principal == "") != (got == "") {
				t.Fatalf("principal %q, want prefix %q", got, tt.principal)
			}
		})
	}
}

func TestRequestValidation(t *testing.T) {
	f := newServer(t, func(o *httpx.Options) { o.BodyLimit = 256 })
	tok := f.jwt(t)
	tests := []struct {
		name, method, path, contentType, body string
		status                                int
		field, message                        string // the first errors[] entry
	}{
		{"a malformed JSON body is a 400 naming the body", "POST", "/v1/things", "application/json", `{"slug": "a",`,
			400, "body", "is not well-formed: unexpected EOF"},
		{"a missing required property is named", "POST", "/v1/things", "application/json", `{"name": "x"}`,
			400, "body.slug", "is required"},
		{"a wrongly typed property is named", "POST", "/v1/things", "application/json", `{"slug": "a", "size": "big"}`,
			400, "body.size", "must be an integer"},
		{"a missing required body is named", "POST", "/v1/things", "", "",
			400, "body", "is required"},
		{"a wrongly typed query parameter is a 400 naming it", "GET", "/v1/things?page=abc", "", "",
			400, "query.page", "must be an integer"},
		{"a query parameter below its minimum is named", "GET", "/v1/things?page=0", "", "",
			400, "query.page", "must be at least 1"},
		{"a path parameter of the wrong format is named", "GET", "/v1/things/not-a-uuid", "", "",
			400, "path.id", "must be a UUID"},
		{"a body in an unaccepted media type is a 415", "POST", "/v1/things", "text/plain", `slug=a`,
			415, "", ""},
		{"a body above the limit its schema allows is a 413", "POST", "/v1/things", "application/json", `{"slug": "a", "name": "` + strings.Repeat("a", 600) + `"}`,
			413, "", ""},
		{"a string above its maxLength is a 400 within the limit the schema allows", "POST", "/v1/things", "application/json", `{"slug": "` + strings.Repeat("a", 65) + `"}`,
			400, "body.slug", "must be at most 64 characters"},
		{"a valid body passes", "POST", "/v1/things", "application/json", `{"slug": "a", "size": 3}`,
			201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, tt.method, f.url+tt.path, tok, tt.contentType, tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.field == "" {
				return
			}
			if len(r.problem.Errors) == 0 {
				t.Fatalf("no errors[] in %s", r.body)
			}
			if got := r.problem.Errors[0]; got.Field != tt.field || !strings.Contains(got.Message, tt.message) {
				t.Fatalf("errors[0] = %+v, want field %q message containing %q", got, tt.field, tt.message)
			}
			if r.problem.Instance != strings.Split(tt.path, "?")[0] || r.problem.Type != httpx.ProblemTypeBase+"invalid" {
				t.Fatalf("problem = %+v", r.problem)
			}
		})
	}
	t.Run("a query default from the spec reaches the handler", func(t *testing.T) {
		if r := do(t, "GET", f.url+"/v1/things", tok, "", ""); r.header.Get("X-Page") != "1" {
			t.Fatalf("page = %q, want the default 1", r.header.Get("X-Page"))
		}
	})
}

func TestUploadStreamsPastTheDefaultBodyLimit(t *testing.T) {
	const limit = 4 << 10
	f := newServer(t, func(o *httpx.Options) {
		o.BodyLimit = limit
		o.OperationBodyLimits = map[string]int64{"uploadFile": 1 << 20}
	})
	url := f.url

	pr, pw := io.Pipe()
	defer pw.CloseWithError(errors.New("test ended")) // unblocks the server if the test fails early
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest("POST", url+"/v1/uploads", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+f.svcToken)

	type result struct {
		status int
		body   string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{status: resp.StatusCode, body: strings.TrimSpace(string(b)), err: err}
	}()
	part, _ := mw.CreateFormFile("file", "scene.aep")
	chunk := bytes.Repeat([]byte("x"), 16<<10)
	if _, err := part.Write(chunk); err != nil {
		t.Fatal(err)
	}
	// The rest of the body is written only once the handler has read the start: a validator
	// that buffered the body would wait for the end that never comes.
	select {
	case <-f.uploadStarted:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler saw nothing before the body was complete: the body was buffered")
	}
	for range 3 {
		if _, err := part.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	_ = mw.Close()
	_ = pw.Close()
	res := <-done
	if res.err != nil || res.status != 200 || res.body != `{"bytes":65536}` {
		t.Fatalf("status %d body %s err %v", res.status, res.body, res.err)
	}

	t.Run("an upload above the operation's own limit is a 413", func(t *testing.T) {
		big := bytes.Repeat([]byte("y"), 2<<20)
		r := do(t, "POST", url+"/v1/uploads", f.svcToken, "multipart/form-data; boundary=b", string(big))
		if r.status != 413 || r.problem.Type != httpx.ProblemTypeBase+"too_large" {
			t.Fatalf("status %d %s", r.status, r.body[:min(200, len(r.body))])
		}
	})
	t.Run("an upload in another media type is a 415 without reading it", func(t *testing.T) {
		r := do(t, "POST", url+"/v1/uploads", f.svcToken, "application/octet-stream", "abc")
		if r.status != 415 {
			t.Fatalf("status %d", r.status)
		}
	})
	t.Run("a multipart body without a boundary is a 400 naming the header", func(t *testing.T) {
		r := do(t, "POST", url+"/v1/uploads", f.svcToken, "multipart/form-data", "--x--")
		if r.status != 400 || len(r.problem.Errors) != 1 || r.problem.Errors[0].Field != "header.Content-Type" {
			t.Fatalf("status %d %s", r.status, r.body)
		}
	})
	t.Run("an anonymous upload is a 401", func(t *testing.T) {
		r := do(t, "POST", url+"/v1/uploads", "", mw.FormDataContentType(), "--x--")
		if r.status != 401 {
			t.Fatalf("status %d", r.status)
		}
	})
}

func TestErrorsBecomeProblems(t *testing.T) {
	f := newServer(t, nil)
	kinds := []struct {
		kind   errs.Kind
		status int
	}{
		{errs.Invalid, 400}, {errs.Unauthenticated, 401}, {errs.Forbidden, 403}, {errs.NotFound, 404},
		{errs.Conflict, 409}, {errs.TooLarge, 413}, {errs.UnsupportedMedia, 415}, {errs.Unprocessable, 422},
		{errs.NotImplemented, 501}, {errs.Upstream, 502}, {errs.Unavailable, 503}, {errs.Internal, 500},
	}
	for _, k := range kinds {
		t.Run(fmt.Sprintf("kind %s is status %d", k.kind, k.status), func(t *testing.T) {
			r := do(t, "GET", fmt.Sprintf("%s/x/errs/%d", f.url, k.kind), "", "", "")
			if r.status != k.status || r.problem.Type != httpx.ProblemTypeBase+k.kind.String() || r.problem.Title != http.StatusText(k.status) {
				t.Fatalf("got %d %+v", r.status, r.problem)
			}
			switch k.kind {
			case errs.Internal:
				if strings.Contains(r.body, "hunter2") || strings.Contains(r.body, "refused") {
					t.Fatalf("internal detail leaked: %s", r.body)
				}
			case errs.Invalid:
				if len(r.problem.Errors) != 2 || r.problem.Errors[1] != (httpx.FieldProblem{Field: "query.tag", Message: "is unknown"}) {
					t.Fatalf("errors = %+v", r.problem.Errors)
				}
			case errs.Unauthenticated:
				if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), `Bearer realm="things", error="invalid_token"`) {
					t.Fatalf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
				}
			case errs.Upstream:
				if r.problem.Detail != "kind upstream" || strings.Contains(r.body, "sk-cause") {
					t.Fatalf("an upstream problem shows its detail, never its cause: %s", r.body)
				}
			default:
				if r.problem.Detail != "kind "+k.kind.String() {
					t.Fatalf("detail = %q", r.problem.Detail)
				}
			}
		})
	}
	t.Run("an unknown route is a 404 problem", func(t *testing.T) {
		r := do(t, "GET", f.url+"/v1/nowhere", "", "", "")
		if r.status != 404 || r.problem.Type != httpx.ProblemTypeBase+"not_found" || r.problem.Instance != "/v1/nowhere" || r.problem.Detail != "" {
			t.Fatalf("got %d %+v", r.status, r.problem)
		}
	})
	id := uuid.NewString()
	for _, tt := range []struct{ name, method, path, meant string }{
		{"a path without the base path names the path with it", "GET", "/things/" + id, "/v1/things/" + id},
		{"a path with a prefix too many names the path without it", "GET", "/api/v1/things", "/v1/things"},
		{"a path below an operation's last parameter is a 404, not a parameter error", "GET", "/v1/things/" + id + "/parts", ""},
		{"a path below an operation's last parameter is a 404 for any method, not a 405", "DELETE", "/v1/things/" + id + "/parts", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, tt.method, f.url+tt.path, "", "", "")
			want := ""
			if tt.meant != "" {
				want = "nothing is served at " + tt.path + "; did you mean " + tt.meant + "?"
			}
			if r.status != 404 || r.problem.Type != httpx.ProblemTypeBase+"not_found" || r.problem.Detail != want {
				t.Fatalf("got %d %+v, want 404 with detail %q", r.status, r.problem, want)
			}
		})
	}
	t.Run("a known route with another method is a 405 problem", func(t *testing.T) {
		r := do(t, "DELETE", f.url+"/v1/public", "", "", "")
		if r.status != 405 || r.problem.Type != httpx.ProblemTypeBase+"method_not_allowed" || r.header.Get("Allow") == "" {
			t.Fatalf("got %d %+v %v", r.status, r.problem, r.header)
		}
	})
	t.Run("a panic is a 500 problem without internals and is logged", func(t *testing.T) {
		r := do(t, "GET", f.url+"/x/panic", "", "", "")
		if r.status != 500 || strings.Contains(r.body, "secret") || strings.Contains(r.body, "goroutine") {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		if !strings.Contains(f.logs.String(), "secret internals") {
			t.Fatal("the panic was not logged")
		}
	})
	t.Run("an unclassified error is a generic 500", func(t *testing.T) {
		r := do(t, "GET", f.url+"/x/plain-error", "", "", "")
		if r.status != 500 || strings.Contains(r.body, "password") {
			t.Fatalf("got %d %s", r.status, r.body)
		}
	})
}

func TestBuiltInRoutes(t *testing.T) {
	ready := errors.New("postgres: dial tcp 10.0.0.7:5432: connection refused")
	var mu sync.Mutex
	f := newServer(t, func(o *httpx.Options) {
		o.Ready = func(context.Context) error { mu.Lock(); defer mu.Unlock(); return ready }
	})
	bi := buildinfo.Get()
	if r := do(t, "GET", f.url+"/healthz", "", "", ""); r.status != 200 ||
		!strings.Contains(r.body, `"version":"`+bi.Version+`"`) || !strings.Contains(r.body, `"go_version":"`+bi.GoVersion+`"`) {
		t.Fatalf("healthz %d %s: want ok with the build", r.status, r.body)
	}
	t.Run("readyz is 503 while a dependency is down, without its address, logged once as a warning", func(t *testing.T) {
		before := len(f.logs.String())
		r := do(t, "GET", f.url+"/readyz", "", "", "")
		if r.status != 503 || strings.Contains(r.body, "10.0.0.7") {
			t.Fatalf("readyz %d %s", r.status, r.body)
		}
		logged := f.logs.String()[before:]
		if n := strings.Count(logged, `"level":"WARN"`); n != 1 || strings.Contains(logged, `"level":"ERROR"`) ||
			!strings.Contains(logged, "not ready") {
			t.Fatalf("want one warning naming the state and no error, logged:\n%s", logged)
		}
	})
	mu.Lock()
	ready = nil
	mu.Unlock()
	if r := do(t, "GET", f.url+"/readyz", "", "", ""); r.status != 200 {
		t.Fatalf("readyz %d once ready", r.status)
	}
	t.Run("metrics count requests by route template", func(t *testing.T) {
		do(t, "GET", f.url+"/v1/things/"+uuid.NewString(), "", "", "")
		r := do(t, "GET", f.metricsURL+"/metrics", "", "", "")
		if !strings.Contains(r.body, `http_requests_total{method="GET",route="/v1/things/:id",status="401"} 1`) ||
			!strings.Contains(r.body, "http_request_duration_seconds_bucket") || !strings.Contains(r.body, "go_goroutines") ||
			!strings.Contains(r.body, `build_info{go_version="`+bi.GoVersion+`"`) {
			t.Fatalf("metrics:\n%s", r.body)
		}
		if r := do(t, "GET", f.url+"/metrics", "", "", ""); r.status != 404 {
			t.Fatalf("the API port answers /metrics with %d, want 404 (metrics have their own port)", r.status)
		}
	})
	t.Run("openapi.yaml is the spec file byte for byte, as text a browser shows", func(t *testing.T) {
		r := do(t, "GET", f.url+"/openapi.yaml", "", "", "")
		if r.status != 200 || r.body != string(specDocument(t)) {
			t.Fatalf("served %d, %d bytes; want the %d bytes of testdata/spec.yaml", r.status, len(r.body), len(specDocument(t)))
		}
		if ct := r.header.Get("Content-Type"); ct != httpx.SpecContentType || !strings.HasPrefix(ct, "text/") {
			t.Fatalf("Content-Type %q", ct)
		}
	})
	t.Run("docs is a Redoc page that loads its bundle and the spec from this server", func(t *testing.T) {
		r := do(t, "GET", f.url+"/docs", "", "", "")
		for _, want := range []string{`<title>httpx test service 1.0.0</title>`, `spec-url="openapi.yaml"`,
			`<script src="docs/redoc.standalone.js">`, `expand-responses="200,201,202,204"`} {
			if !strings.Contains(r.body, want) {
				t.Fatalf("docs lack %q:\n%s", want, r.body)
			}
		}
		if strings.Contains(r.body, "https://") || strings.Contains(r.body, "http://") {
			t.Fatalf("docs refer to another host:\n%s", r.body)
		}
		// The policy admits this server's scripts and the page's one inline script, by its hash.
		csp := r.header.Get("Content-Security-Policy")
		inline := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(r.body, -1)
		if len(inline) != 1 {
			t.Fatalf("%d inline scripts, want the one guard", len(inline))
		}
		sum := sha256.Sum256([]byte(inline[0][1]))
		for _, want := range []string{"default-src 'none'", "script-src 'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'",
			"img-src 'self' data:", "connect-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Fatalf("Content-Security-Policy %q lacks %q", csp, want)
			}
		}
	})
	t.Run("HEAD answers 200 on docs and the spec", func(t *testing.T) {
		for _, path := range []string{"/docs", "/openapi.yaml", httpx.RedocAsset} {
			if r := do(t, "HEAD", f.url+path, "", "", ""); r.status != 200 || r.body != "" {
				t.Fatalf("HEAD %s: %d %q", path, r.status, r.body)
			}
		}
	})
	t.Run("the Redoc bundle is served gzipped and revalidated by ETag", func(t *testing.T) {
		plain := do(t, "GET", f.url+httpx.RedocAsset, "", "", "", "Accept-Encoding", "identity")
		if plain.status != 200 || !strings.HasPrefix(plain.header.Get("Content-Type"), "text/javascript") ||
			!strings.Contains(plain.body, "Redoc") || len(plain.body) < 100_000 {
			t.Fatalf("bundle: %d %q, %d bytes", plain.status, plain.header.Get("Content-Type"), len(plain.body))
		}
		// Setting Accept-Encoding by hand keeps the transport from decompressing the body.
		zipped := do(t, "GET", f.url+httpx.RedocAsset, "", "", "", "Accept-Encoding", "gzip, deflate")
		if zipped.header.Get("Content-Encoding") != "gzip" || len(zipped.body) >= len(plain.body)/2 {
			t.Fatalf("gzipped bundle: encoding %q, %d bytes of %d", zipped.header.Get("Content-Encoding"), len(zipped.body), len(plain.body))
		}
		zr, err := gzip.NewReader(strings.NewReader(zipped.body))
		if err != nil {
			t.Fatal(err)
		}
		if unzipped, err := io.ReadAll(zr); err != nil || string(unzipped) != plain.body {
			t.Fatalf("the gzipped bundle is not the bundle: %v", err)
		}
		etag := zipped.header.Get("ETag")
		if etag == "" || etag == plain.header.Get("ETag") {
			t.Fatalf("ETags %q (gzip) and %q (identity) must be set and differ", etag, plain.header.Get("ETag"))
		}
		again := do(t, "GET", f.url+httpx.RedocAsset, "", "", "", "Accept-Encoding", "gzip", "If-None-Match", etag)
		if again.status != http.StatusNotModified || again.body != "" {
			t.Fatalf("revalidation: %d, %d bytes", again.status, len(again.body))
		}
	})
}

func TestABodyLimitForAnOperationTheSpecLacksIsRefusedAtStart(t *testing.T) {
	_, err := httpx.New(httpx.Options{Service: "things", SpecDocument: specDocument(t), Logger: slog.New(slog.DiscardHandler),
		Auth: &auth.Authenticator{}, OperationBodyLimits: map[string]int64{"UploadFile": 1 << 20}})
	if err == nil || !strings.Contains(err.Error(), `"UploadFile"`) {
		t.Fatalf("New accepted a limit for an unknown operation (the spec has uploadFile): %v", err)
	}
}

func TestRequestIDAndTraceReachTheAccessLog(t *testing.T) {
	f := newServer(t, nil)
	traceID := "4bf92f3577b34da6a3ce929d0e0e4736"
	r := do(t, "GET", f.url+"/v1/public", "", "", "", "X-Request-Id", "req-42",
		"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if r.header.Get("X-Request-Id") != "req-42" {
		t.Fatalf("request id not echoed: %q", r.header.Get("X-Request-Id"))
	}
	var line map[string]any
	for l := range strings.SplitSeq(f.logs.String(), "\n") {
		if strings.Contains(l, `"http request"`) && strings.Contains(l, "req-42") {
			_ = json.Unmarshal([]byte(l), &line)
		}
	}
	if line["trace_id"] != traceID || line["route"] != "/v1/public" || line["status"] != float64(200) || line["service"] != "things" {
		t.Fatalf("access log = %v\nall logs:\n%s", line, f.logs.String())
	}
	if r := do(t, "GET", f.url+"/v1/public", "", "", "", "X-Request-Id", strings.Repeat("r", 200)); len(r.header.Get("X-Request-Id")) != 36 {
		t.Fatalf("a malformed request id was kept: %q", r.header.Get("X-Request-Id"))
	}
}

func TestServeDrainsInFlightRequests(t *testing.T) {
	e, err := httpx.New(httpx.Options{Service: "drain", SpecDocument: []byte("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	e.GET("/slow", func(c echo.Context) error {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return c.String(http.StatusOK, "done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpx.ServeListener(ctx, e, ln, slog.New(slog.DiscardHandler), 5*time.Second) }()

	url := "http://" + ln.Addr().String()
	type result struct {
		body string
		err  error
	}
	slow := make(chan result, 1)
	go func() {
		resp, err := http.Get(url + "/slow")
		if err != nil {
			slow <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		slow <- result{body: string(b)}
	}()
	<-started
	cancel()
	if r := <-slow; r.err != nil || r.body != "done" {
		t.Fatalf("in-flight request: %q %v", r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve returned %v", err)
	}
	// The listener is closed (dialling its port could reach another test's listener that the
	// kernel gave the freed port to).
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("still accepting after shutdown: %v", err)
	}
}

// /metrics has a listener of its own, started with the API's and closed after it; a metrics
// port in use fails the start instead of running unobserved.
func TestServeRunsTheMetricsServerBesideTheAPI(t *testing.T) {
	tel, err := telemetry.Setup(context.Background(), "metered", telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := httpx.New(httpx.Options{Service: "metered", SpecDocument: []byte("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"),
		Logger: slog.New(slog.DiscardHandler), Telemetry: tel})
	if err != nil {
		t.Fatal(err)
	}
	common, err := config.Defaults[config.Common]()
	if err != nil {
		t.Fatal(err)
	}
	if common.MetricsAddr != ":9090" || !common.MetricsEnabled {
		t.Fatalf("defaults: METRICS_ADDR %q, METRICS_ENABLED %v", common.MetricsAddr, common.MetricsEnabled)
	}
	metricsAddr := freeAddr(t)
	common.MetricsAddr = metricsAddr
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- httpx.ServeListener(ctx, e, ln, slog.New(slog.DiscardHandler), 5*time.Second, httpx.WithMetrics(common, tel))
	}()
	var body string
	for deadline := time.Now().Add(5 * time.Second); ; {
		if resp, err := http.Get("http://" + metricsAddr + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			body = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the metrics server does not answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(body, "build_info{") || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics:\n%s", body)
	}
	for url, what := range map[string]string{"http://" + metricsAddr + "/healthz": "the metrics port serves more than /metrics",
		"http://" + ln.Addr().String() + "/metrics": "the API port serves /metrics"} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("%s: %d", what, resp.StatusCode)
		}
	}

	// A second server on the same metrics port does not start.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := httpx.ServeListener(ctx, e, ln2, slog.New(slog.DiscardHandler), time.Second, httpx.WithMetrics(common, tel)); err == nil ||
		!strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Fatalf("a metrics port in use: %v, want an error naming METRICS_ADDR", err)
	}

	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve returned %v", err)
	}
	if _, err := net.DialTimeout("tcp", metricsAddr, time.Second); err == nil {
		t.Fatal("the metrics server still accepts after shutdown")
	}

	// METRICS_ENABLED=false: no metrics listener at all.
	common.MetricsEnabled = false
	ln3, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx3, cancel3 := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- httpx.ServeListener(ctx3, e, ln3, slog.New(slog.DiscardHandler), time.Second, httpx.WithMetrics(common, tel))
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if resp, err := http.Get("http://" + ln3.Addr().String() + "/healthz"); err == nil {
			_ = resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the API does not answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := net.DialTimeout("tcp", metricsAddr, time.Second); err == nil {
		t.Error("METRICS_ENABLED=false still serves metrics")
	}
	cancel3()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
