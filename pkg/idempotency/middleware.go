package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
)

// replayedHeaders are the response headers a replay repeats besides the body.
var replayedHeaders = []string{echo.HeaderContentType, echo.HeaderLocation, "ETag"}

// Middleware applies the keys to the operations of spec that declare the Idempotency-Key
// header parameter. Add it after httpx.New (e.Use): it needs the authenticated caller and
// sees only requests the contract has accepted. Requests without the header, to other
// operations, or without a caller pass through untouched.
func (k *Keys) Middleware(spec *openapi3.T) (echo.MiddlewareFunc, error) {
	router, err := httpx.NewRouter(spec)
	if err != nil {
		return nil, err
	}
	declaring := map[string]bool{}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if declaresKey(op) {
				declaring[op.OperationID] = true
			}
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if _, present := c.Request().Header[Header]; !present || len(declaring) == 0 {
				return next(c)
			}
			route, _, err := router.FindRoute(c.Request())
			if err != nil || !declaring[route.Operation.OperationID] {
				return next(c)
			}
			return k.serve(c, next, route)
		}
	}, nil
}

// declaresKey reports whether op declares the Idempotency-Key header parameter.
func declaresKey(op *openapi3.Operation) bool {
	for _, p := range op.Parameters {
		if p.Value != nil && p.Value.In == openapi3.ParameterInHeader &&
			http.CanonicalHeaderKey(p.Value.Name) == Header {
			return true
		}
	}
	return false
}

// keyOf reads the key: one header value of 1 to 255 printable ASCII characters.
func keyOf(req *http.Request) (string, error) {
	values := req.Header.Values(Header)
	invalid := func(msg string) error {
		return errs.InvalidFields(errs.Field("header."+Header, msg))
	}
	if len(values) != 1 {
		return "", invalid("must be sent once")
	}
	key := values[0]
	if key == "" || len(key) > MaxKeyLength {
		return "", invalid("must be 1 to 255 characters long")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", invalid("must be printable ASCII")
		}
	}
	return key, nil
}

// scopeOf names the caller a key belongs to: a user within its tenant, or a service token.
func scopeOf(p auth.Principal) string {
	if p.Kind == auth.Service {
		return "service:" + p.Name
	}
	return "user:" + p.UserID.String() + "@" + p.TenantID.String()
}

func (k *Keys) serve(c echo.Context, next echo.HandlerFunc, route *routers.Route) error {
	req := c.Request()
	key, err := keyOf(req)
	if err != nil {
		return err
	}
	p, ok := auth.FromContext(req.Context())
	if !ok {
		return next(c)
	}
	scope := scopeOf(p)
	claimedAt, held, err := k.claim(req.Context(), scope, key)
	if err != nil {
		return err
	}
	if held != nil {
		return k.replay(c, held)
	}
	return k.first(c, next, scope, key, claimedAt)
}

// replay answers a retry from the stored answer, after checking that it is the same request.
func (k *Keys) replay(c echo.Context, held *record) error {
	if held.answer == nil {
		return errs.E(errs.Conflict, "a request with this Idempotency-Key is still in progress; retry once it has been answered")
	}
	body := newBodyHash(c.Request())
	if _, err := io.Copy(io.Discard, body); err != nil {
		return bodyError(err)
	}
	if !bytes.Equal(fingerprintOf(c.Request(), body.h), held.fingerprint) {
		return errs.E(errs.Unprocessable, "this Idempotency-Key was used for another request (method, path, query or body); use a new key for a new request")
	}
	a := held.answer
	h := c.Response().Header()
	for _, name := range replayedHeaders {
		if v, ok := a.Headers[name]; ok {
			h.Set(name, v)
		}
	}
	c.Response().WriteHeader(a.Status)
	_, err := c.Response().Write(a.Body)
	return err
}

// first runs the request that claimed the key and stores its answer, or releases the key when
// the answer is not final.
func (k *Keys) first(c echo.Context, next echo.HandlerFunc, scope, key string, claimedAt time.Time) error {
	req := c.Request()
	// Storing or releasing must happen even when the caller has gone away.
	bg := context.WithoutCancel(req.Context())
	released := false
	release := func() {
		released = true
		if err := k.release(bg, scope, key, claimedAt); err != nil {
			k.opts.Logger.ErrorContext(bg, "releasing an idempotency key", slog.String("error", err.Error()))
		}
	}
	defer func() {
		if r := recover(); r != nil {
			if !released {
				release()
			}
			panic(r)
		}
	}()

	body := newBodyHash(req)
	req.Body = body
	res := c.Response()
	rec := &recorder{ResponseWriter: res.Writer, max: k.opts.MaxAnswer}
	res.Writer = rec
	defer func() { res.Writer = rec.ResponseWriter }()

	if err := next(c); err != nil {
		c.Error(err) // rendered here, so that the answer can be stored
	}
	// The fingerprint covers the whole body, also what the handler left unread.
	_, drainErr := io.Copy(io.Discard, body)
	if keep := drainErr == nil && final(res.Status) && !rec.overflow; !keep {
		release() // the answer stands as rendered; only the key goes
		return nil
	}
	a := answer{Status: res.Status, Headers: map[string]string{}, Body: rec.body.Bytes()}
	for _, name := range replayedHeaders {
		if v := res.Header().Get(name); v != "" {
			a.Headers[name] = v
		}
	}
	if err := k.complete(bg, scope, key, claimedAt, fingerprintOf(req, body.h), a); err != nil {
		k.opts.Logger.ErrorContext(bg, "storing the answer of an idempotency key", slog.String("error", err.Error()))
		release()
	}
	return nil
}

// final reports whether an answer is kept for retries: a success or the caller's mistake, not a
// failure of ours (5xx) nor a transient refusal (408, 429).
func final(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests:
		return false
	}
	return status >= 200 && status < 500
}

// fingerprintOf identifies a request: method, path, query and the hash of its body.
func fingerprintOf(req *http.Request, body hash.Hash) []byte {
	h := sha256.New()
	_, _ = io.WriteString(h, req.Method+" "+req.URL.EscapedPath()+"?"+req.URL.RawQuery+"\n")
	_, _ = h.Write(body.Sum(nil))
	return h.Sum(nil)
}

func bodyError(err error) error {
	var maxed *http.MaxBytesError
	if errors.As(err, &maxed) {
		return errs.Ef(errs.TooLarge, "request body is larger than %d bytes", maxed.Limit)
	}
	return errs.Wrap(errs.Invalid, "the request body could not be read", err)
}

// bodyHash hashes a request body as it is read.
type bodyHash struct {
	io.ReadCloser
	h hash.Hash
}

func newBodyHash(req *http.Request) *bodyHash {
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	return &bodyHash{ReadCloser: body, h: sha256.New()}
}

func (b *bodyHash) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	_, _ = b.h.Write(p[:n])
	return n, err
}

// recorder keeps a copy of the response body, up to max bytes.
type recorder struct {
	http.ResponseWriter
	body     bytes.Buffer
	max      int
	overflow bool
}

func (r *recorder) Write(p []byte) (int, error) {
	if !r.overflow {
		if r.body.Len()+len(p) > r.max {
			r.overflow = true
			r.body.Reset()
		} else {
			r.body.Write(p)
		}
	}
	return r.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer (Flush).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Apply adds the middleware for the operations of the OpenAPI document doc (as the service
// serves it at /openapi.yaml) to e, a server built by httpx.New.
func (k *Keys) Apply(e *echo.Echo, doc []byte) error {
	spec, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		return fmt.Errorf("idempotency: parse the spec document: %w", err)
	}
	mw, err := k.Middleware(spec)
	if err != nil {
		return fmt.Errorf("idempotency: route the spec: %w", err)
	}
	e.Use(mw)
	return nil
}
