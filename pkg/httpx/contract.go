package httpx

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/errs"
)

// NewRouter returns a kin-openapi router for spec that matches requests for any host: the
// servers of a copy of spec are cut to their paths ("http://localhost:8081/v1" -> "/v1").
func NewRouter(spec *openapi3.T) (routers.Router, error) {
	return gorillamux.NewRouter(routable(spec))
}

// routable is a copy of spec whose servers are cut to their paths, each path once.
func routable(spec *openapi3.T) *openapi3.T {
	cp := *spec
	cp.Servers = nil
	seen := map[string]bool{}
	for _, s := range spec.Servers {
		p := serverPath(s.URL)
		if seen[p] {
			continue
		}
		seen[p] = true
		rs := *s
		rs.URL = p
		cp.Servers = append(cp.Servers, &rs)
	}
	return &cp
}

// echoRoutes finds the operation of a request that echo has already routed, without matching
// its path again: by the request's method and echo's route, which is the operation's path under
// its server's, "{id}" written ":id", as the generated code registers it. Echo's path
// parameters are the substrings of the path that the spec's router would take only when the
// path needs no escaping; any other request is left to the spec's router.
type echoRoutes map[string]map[string]*routers.Route // method -> echo route -> operation

// newEchoRoutes indexes the operations of spec (a routable copy) by method and echo route. A
// path with a literal colon is left out (the generated code escapes it).
func newEchoRoutes(spec *openapi3.T) echoRoutes {
	r := echoRoutes{}
	for _, server := range spec.Servers {
		base := strings.TrimSuffix(server.URL, "/")
		for path, item := range spec.Paths.Map() {
			if strings.Contains(path, ":") {
				continue
			}
			for method, op := range item.Operations() {
				if r[method] == nil {
					r[method] = map[string]*routers.Route{}
				}
				r[method][base+echoRoute(path)] = &routers.Route{
					Spec: spec, Server: server, Path: path, PathItem: item, Method: method, Operation: op}
			}
		}
	}
	return r
}

// find returns the operation and path parameters of the request c routed, or false.
func (r echoRoutes) find(c echo.Context) (*routers.Route, map[string]string, bool) {
	u := c.Request().URL
	if u.RawPath != "" || u.EscapedPath() != u.Path {
		return nil, nil, false
	}
	route, ok := r[c.Request().Method][c.Path()]
	if !ok {
		return nil, nil, false
	}
	names, values := c.ParamNames(), c.ParamValues()
	params := make(map[string]string, len(names))
	for i, n := range names {
		params[n] = values[i]
	}
	return route, params, true
}

// serverPath keeps the path of a server URL; "/" when it has none.
func serverPath(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		if i := strings.Index(rest, "/"); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	if u == "" {
		return "/"
	}
	return u
}

// contract enforces the spec on every request that routes to one of its operations:
// credentials first (so an anonymous bad request is a 401), then the body limit, then
// parameters and body.
type contract struct {
	service   string
	routes    echoRoutes // the operations of the routes echo matched
	router    routers.Router
	auth      *auth.Authenticator
	bodyLimit int64
	opLimits  map[string]int64
	deadlines deadlines
}

func (k *contract) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if overMatched(c) {
			return echo.ErrNotFound
		}
		if !routed(c) {
			return next(c) // echo answers 404/405 itself
		}
		k.deadlines.wrap(c)
		req := c.Request()
		route, params, ok := k.routes.find(c)
		var err error
		if !ok {
			route, params, err = k.router.FindRoute(req)
		}
		if err != nil {
			// Not an operation of the spec (the built-in routes): only the default limit applies.
			if err := limitBody(c, k.bodyLimit); err != nil {
				return err
			}
			return next(c)
		}
		streamResponses(c, route.Operation)
		p, err := k.authenticate(req.Context(), req, route, params)
		if err != nil {
			return err
		}
		if p != nil {
			req = req.WithContext(auth.WithPrincipal(req.Context(), *p))
		}
		c.SetRequest(withFormSchema(req, route.Operation))
		limit := k.bodyLimit
		if l, ok := k.opLimits[route.Operation.OperationID]; ok {
			limit = l
		}
		if err := limitBody(c, limit); err != nil {
			return err
		}
		if err := validate(c.Request(), route, params); err != nil {
			return err
		}
		return next(c)
	}
}

// limitBody refuses a declared length above limit at once and caps what can be read otherwise;
// reading past the cap fails with *http.MaxBytesError, rendered as 413.
func limitBody(c echo.Context, limit int64) error {
	req := c.Request()
	if limit <= 0 || req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	if req.ContentLength > limit {
		return errs.Ef(errs.TooLarge, "request body is larger than %d bytes", limit)
	}
	req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, limit)
	return nil
}

// SchemaValidationOptions are the schema options requests (and, in httpxtest, responses) are
// checked with: on top of kin-openapi's built-in formats (date, date-time, byte), "uuid" (any
// RFC 9562 version, so UUIDv7 passes) and "email" are checked. They are scoped to the call,
// not registered globally.
func SchemaValidationOptions() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{
		openapi3.WithStringFormatValidator("uuid", uuidFormat),
		openapi3.WithStringFormatValidator("email", emailFormat),
		openapi3.WithStringFormatValidator("uri", uriFormat),
	}
}

var (
	uuidFormat = openapi3.NewCallbackValidator(func(s string) error {
		if !isUUID(s) {
			return errors.New("not a UUID")
		}
		return nil
	})
	emailFormat = openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail)
	uriFormat   = openapi3.NewCallbackValidator(func(s string) error {
		if u, err := url.Parse(s); err != nil || !u.IsAbs() {
			return errors.New("not an absolute URI")
		}
		return nil
	})
)

// isUUID reports whether s is a UUID as openapi3.FormatOfStringForUUIDOfRFC9562 has it (the
// 8-4-4-4-12 hex form, a version of 1-8 and the RFC variant, or the nil or max UUID), without
// a regular expression: every path parameter and id in a body goes through it.
func isUUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	nilUUID, maxUUID := true, true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case i == 8 || i == 13 || i == 18 || i == 23:
		case c == '0':
			maxUUID = false
		case c == 'f' || c == 'F':
			nilUUID = false
		case '1' <= c && c <= '9' || 'a' <= c && c <= 'e' || 'A' <= c && c <= 'E':
			nilUUID, maxUUID = false, false
		default:
			return false
		}
	}
	if nilUUID || maxUUID {
		return true
	}
	version, variant := s[14], s[19]
	return '1' <= version && version <= '8' && strings.IndexByte("89abAB", variant) >= 0
}

type schemeKind int

const (
	unknownScheme schemeKind = iota
	jwtScheme
	serviceScheme
)

// kindOfScheme maps a security scheme of the spec to the credential it means: BearerAuth (or any
// bearer scheme with bearerFormat JWT) is a user JWT; ServiceToken (or another bearer scheme) is
// an opaque service token.
func kindOfScheme(name string, s *openapi3.SecurityScheme) schemeKind {
	switch {
	case name == "BearerAuth":
		return jwtScheme
	case name == "ServiceToken":
		return serviceScheme
	case s == nil || s.Type != "http" || !strings.EqualFold(s.Scheme, "bearer"):
		return unknownScheme
	case strings.EqualFold(s.BearerFormat, "JWT"):
		return jwtScheme
	}
	return serviceScheme
}

type authFailure struct {
	scheme       schemeKind
	err          error
	missingScope bool
}

func (f *authFailure) Error() string { return f.err.Error() }

// authenticate applies the security requirements of the operation (any one satisfied passes)
// and returns the principal, or nil for an operation without security.
func (k *contract) authenticate(ctx context.Context, req *http.Request, route *routers.Route, params map[string]string) (*auth.Principal, error) {
	security := route.Operation.Security
	if security == nil {
		security = &route.Spec.Security
	}
	if len(*security) == 0 {
		return nil, nil
	}
	token, present := bearerToken(req)
	var (
		principal *auth.Principal
		failures  []*authFailure
	)
	check := func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
		kind := kindOfScheme(in.SecuritySchemeName, in.SecurityScheme)
		var (
			p   auth.Principal
			err error
		)
		switch {
		case !present:
			err = errors.New("a bearer token is required")
		case kind == jwtScheme:
			p, err = k.auth.VerifyJWT(ctx, token)
		case kind == serviceScheme:
			p, err = k.auth.VerifyServiceToken(token)
		default:
			err = fmt.Errorf("security scheme %q is not supported", in.SecuritySchemeName)
		}
		if err == nil {
			for _, s := range in.Scopes {
				if !p.HasScope(s) && !p.HasRole(s) {
					f := &authFailure{scheme: kind, missingScope: true, err: fmt.Errorf("the token lacks scope %q", s)}
					failures = append(failures, f)
					return f
				}
			}
			principal = &p
			return nil
		}
		f := &authFailure{scheme: kind, err: err}
		failures = append(failures, f)
		return f
	}
	// The validator reads the body to hand a copy to each check; ours never look at it, and an
	// upload must stream, so the checks see a body-less copy of the request.
	bare := req.WithContext(ctx)
	bare.Body, bare.ContentLength, bare.GetBody = http.NoBody, 0, nil
	in := &openapi3filter.RequestValidationInput{Request: bare, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: check}}
	if err := openapi3filter.ValidateSecurityRequirements(ctx, in, *security); err != nil {
		return nil, authError(token, present, failures)
	}
	return principal, nil
}

// bearerToken reads "Authorization: Bearer <token>".
func bearerToken(req *http.Request) (string, bool) {
	h := req.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, token, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", true // present but not a bearer token: every check fails on it
	}
	return strings.TrimSpace(token), true
}

// authError explains the most relevant failure: the one of the scheme that the token's shape
// claims ("svc_..." is a service token, anything else a JWT).
func authError(token string, present bool, failures []*authFailure) error {
	if !present {
		return &challenge{err: errs.E(errs.Unauthenticated, "a bearer token is required")}
	}
	for _, f := range failures {
		if f.missingScope {
			return &challenge{err: errs.E(errs.Forbidden, f.err.Error()), code: "insufficient_scope"}
		}
	}
	shape, other := jwtScheme, "user tokens"
	if strings.HasPrefix(token, auth.ServiceTokenPrefix) {
		shape, other = serviceScheme, "service tokens"
	}
	detail := other + " are not accepted for this operation"
	if token == "" {
		detail = "the Authorization header does not carry a bearer token"
	} else if i := slices.IndexFunc(failures, func(f *authFailure) bool { return f.scheme == shape }); i >= 0 {
		detail = failures[i].err.Error()
	}
	return &challenge{err: errs.E(errs.Unauthenticated, detail), code: "invalid_token"}
}

// validate checks parameters and body against the operation. Multipart and raw-stream bodies
// are left to the handler (an upload must not be buffered here); their media type is still
// checked.
func validate(req *http.Request, route *routers.Route, params map[string]string) error {
	op := route.Operation
	// The query is parsed once for the guards and for carried; the validator reads the same
	// values (url.URL.Query keeps what parses of a malformed query, as here).
	query, queryErr := url.ParseQuery(req.URL.RawQuery)
	wellFormed := query
	if queryErr != nil {
		wellFormed = nil
	}
	guarded := guardParams(req, wellFormed, op, route.PathItem, params)
	opts := &openapi3filter.Options{
		MultiError:                        true,
		AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
		RejectWhenRequestBodyNotSpecified: true,
		SchemaValidationOptions:           SchemaValidationOptions(),
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil && hasBody(req) {
		ct := req.Header.Get("Content-Type")
		if op.RequestBody.Value.Content.Get(ct) == nil {
			return errs.Ef(errs.UnsupportedMedia, "content type %q is not accepted; use %s", ct,
				strings.Join(slices.Sorted(mapKeys(op.RequestBody.Value.Content)), " or "))
		}
		if err := multipartBoundary(ct); err != nil {
			return err
		}
		if streamed(ct) {
			opts.ExcludeRequestBody = true
			if isText(ct) {
				fields, err := guardText(req)
				if err != nil {
					return requestError(err)
				}
				guarded = append(guarded, fields...)
			}
		} else {
			fields, err := guardBody(req)
			if errors.Is(err, errTrailing) {
				return errs.InvalidFields(append(guarded, errs.Field("body", msgTrailing))...)
			}
			if err != nil {
				return requestError(err)
			}
			guarded = append(guarded, fields...)
		}
	}
	// Credentials were checked by authenticate; the validator must not check (nor read) again.
	unsecured := *op
	unsecured.Security = &openapi3.SecurityRequirements{}
	unsecured.Parameters = carried(op.Parameters, route.PathItem, req, query)
	r := *route
	r.Operation = &unsecured
	err := openapi3filter.ValidateRequest(req.Context(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: &r, Options: opts,
	})
	if err == nil {
		if len(guarded) > 0 {
			return errs.InvalidFields(guarded...)
		}
		return nil
	}
	return requestError(err, guarded...)
}

// carried leaves out of params those the validator would pass without a look: optional, without
// a default, and absent from the request. Decoding each of them costs the validator as much as
// checking a present one. A parameter whose absence it cannot tell for certain (an exploded
// object, a deepObject, content, one the path item also declares) stays. query is the request's
// query as the validator reads it.
func carried(params openapi3.Parameters, pathItem *openapi3.PathItem, req *http.Request, query url.Values) openapi3.Parameters {
	absent := func(p *openapi3.Parameter) bool {
		if p == nil || p.Required || p.Content != nil || p.Schema == nil || p.Schema.Value == nil {
			return false
		}
		s := p.Schema.Value
		if s.Default != nil || len(s.AllOf) > 0 || s.Type == nil ||
			!s.Type.Includes(openapi3.TypeString) && !s.Type.Includes(openapi3.TypeInteger) &&
				!s.Type.Includes(openapi3.TypeNumber) && !s.Type.Includes(openapi3.TypeBoolean) &&
				!s.Type.Includes(openapi3.TypeArray) {
			return false
		}
		if pathItem != nil && pathItem.Parameters.GetByInAndName(p.In, p.Name) != nil {
			return false
		}
		switch p.In {
		case openapi3.ParameterInQuery:
			if p.Style != "" && p.Style != openapi3.SerializationForm {
				return false
			}
			_, ok := query[p.Name]
			return !ok
		case openapi3.ParameterInHeader:
			return len(req.Header.Values(p.Name)) == 0
		}
		return false
	}
	var kept openapi3.Parameters // nil until a parameter is left out
	for i, ref := range params {
		switch {
		case absent(ref.Value):
			if kept == nil {
				kept = append(make(openapi3.Parameters, 0, len(params)-1), params[:i]...)
			}
		case kept != nil:
			kept = append(kept, ref)
		}
	}
	if kept == nil {
		return params
	}
	return kept
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func hasBody(req *http.Request) bool {
	return req.Body != nil && req.Body != http.NoBody && req.ContentLength != 0
}

// multipartBoundary refuses a multipart body whose Content-Type names no boundary: no
// reader can split it, so it is the caller's mistake (400), not a handler's failure.
func multipartBoundary(contentType string) error {
	mt, params, err := mime.ParseMediaType(contentType)
	if err == nil && strings.HasPrefix(mt, "multipart/") && params["boundary"] == "" {
		return errs.InvalidFields(errs.Field("header.Content-Type", "a multipart body needs a boundary parameter"))
	}
	return nil
}

// streamed reports whether a body of this media type goes to the handler unread: everything
// but JSON and url-encoded forms.
func streamed(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch {
	case mt == "application/json", strings.HasSuffix(mt, "+json"), mt == "application/x-www-form-urlencoded":
		return false
	}
	return true
}

// requestError turns the validator's errors into one 400 naming every field (or a 413).
func requestError(err error, guarded ...errs.FieldError) error {
	var maxed *http.MaxBytesError
	if errors.As(err, &maxed) {
		return errs.Ef(errs.TooLarge, "request body is larger than %d bytes", maxed.Limit)
	}
	var slow *bodyTimeoutError
	if errors.As(err, &slow) {
		return slow
	}
	fields := guarded
	collectFields(err, &fields)
	if len(fields) == 0 {
		fields = append(fields, errs.Field("request", err.Error()))
	}
	return errs.InvalidFields(fields...)
}

func collectFields(err error, out *[]errs.FieldError) {
	var me openapi3.MultiError
	if errors.As(err, &me) && !isRequestError(err) {
		for _, e := range me {
			collectFields(e, out)
		}
		return
	}
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		*out = append(*out, errs.Field("request", err.Error()))
		return
	}
	switch {
	case re.Parameter != nil:
		field := re.Parameter.In + "." + re.Parameter.Name
		var schema *openapi3.Schema
		if re.Parameter.Schema != nil {
			schema = re.Parameter.Schema.Value
		}
		valueFields(field, schema, re.Err, out)
	case re.RequestBody != nil:
		var pe *openapi3filter.ParseError
		if errors.As(re.Err, &pe) {
			*out = append(*out, errs.Field("body", "is not well-formed: "+rootCause(pe)))
			return
		}
		valueFields("body", nil, re.Err, out)
	default:
		// e.g. "request body not allowed for this request"
		*out = append(*out, errs.Field("body", re.Error()))
	}
}

func isRequestError(err error) bool {
	_, ok := err.(*openapi3filter.RequestError)
	return ok
}

// valueFields names the failures of one value: schema errors get their JSON pointer appended
// ("body.items.0.name").
func valueFields(field string, schema *openapi3.Schema, err error, out *[]errs.FieldError) {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		for _, e := range me {
			valueFields(field, schema, e, out)
		}
		return
	}
	var se *openapi3.SchemaError
	var pe *openapi3filter.ParseError
	switch {
	case errors.Is(err, openapi3filter.ErrInvalidRequired):
		*out = append(*out, errs.Field(field, "is required"))
	case errors.Is(err, openapi3filter.ErrInvalidEmptyValue):
		*out = append(*out, errs.Field(field, "must not be empty"))
	case errors.As(err, &se):
		if p := se.JSONPointer(); len(p) > 0 {
			field += "." + strings.Join(p, ".")
		}
		if name, ok := unknownProperty(se); ok {
			*out = append(*out, errs.Field(field+"."+fieldName(name), msgUnknownProp))
			return
		}
		*out = append(*out, errs.Field(field, schemaMessage(se)))
	case errors.As(err, &pe):
		if path := pe.Path(); len(path) > 0 {
			for _, p := range path {
				field += "." + fmt.Sprint(p)
			}
		} else if schema != nil && schema.Type != nil && len(schema.Type.Slice()) == 1 {
			*out = append(*out, errs.Field(field, "must be "+article(schema.Type.Slice()[0])))
			return
		}
		*out = append(*out, errs.Field(field, "is not well-formed: "+rootCause(pe)))
	case err != nil:
		*out = append(*out, errs.Field(field, err.Error()))
	}
}

func rootCause(pe *openapi3filter.ParseError) string {
	if c := pe.RootCause(); c != nil {
		return c.Error()
	}
	return pe.Reason
}

func article(typ string) string {
	switch typ {
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}
