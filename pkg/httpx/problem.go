package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/pkg/errs"
)

// ProblemContentType is the media type of every error body (RFC 9457).
const ProblemContentType = "application/problem+json"

// ProblemTypeBase prefixes the type URI of every problem; the kind name follows.
const ProblemTypeBase = "https://problems.videotpl.dev/"

// Problem is the RFC 9457 body of every error response.
type Problem struct {
	Type     string         `json:"type"`
	Title    string         `json:"title"`
	Status   int            `json:"status"`
	Detail   string         `json:"detail,omitempty"`
	Instance string         `json:"instance,omitempty"`
	Errors   []FieldProblem `json:"errors,omitempty"`
	// RequestID repeats the X-Request-Id response header in the body, where a caller that logs
	// or forwards only the body still finds what to quote when asking about the failure.
	RequestID string `json:"request_id"`
}

// FieldProblem names one offending input field, e.g. {"query.page", "must be an integer"}.
type FieldProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// kinds is the one table from error kind to HTTP status. The title of a problem is the status text.
var kinds = map[errs.Kind]int{
	errs.Invalid:          http.StatusBadRequest,
	errs.Unauthenticated:  http.StatusUnauthorized,
	errs.Forbidden:        http.StatusForbidden,
	errs.NotFound:         http.StatusNotFound,
	errs.Conflict:         http.StatusConflict,
	errs.TooLarge:         http.StatusRequestEntityTooLarge,
	errs.UnsupportedMedia: http.StatusUnsupportedMediaType,
	errs.Unprocessable:    http.StatusUnprocessableEntity,
	errs.Unavailable:      http.StatusServiceUnavailable,
	errs.NotImplemented:   http.StatusNotImplemented,
	errs.Upstream:         http.StatusBadGateway,
	errs.Internal:         http.StatusInternalServerError,
}

// StatusOf returns the HTTP status of an error kind.
func StatusOf(k errs.Kind) int {
	if s, ok := kinds[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// kindOfStatus is the reverse of kinds, for errors that arrive as a bare status (echo's own).
func kindOfStatus(status int) (errs.Kind, bool) {
	for k, s := range kinds {
		if s == status {
			return k, true
		}
	}
	return errs.Internal, false
}

const internalDetail = "an internal error occurred; the request id identifies it in our logs"

// challenge carries the RFC 6750 error code of a 401/403 raised by the authentication step.
type challenge struct {
	err  *errs.Error
	code string // "invalid_token", "insufficient_scope", or "" when no credentials were sent
}

func (c *challenge) Error() string { return c.err.Error() }
func (c *challenge) Unwrap() error { return c.err }

// problemFor classifies err. internal reports whether the error is a fault of ours to be logged.
func problemFor(err error) (p Problem, internal bool) {
	var (
		he    *echo.HTTPError
		maxed *http.MaxBytesError
		slow  *bodyTimeoutError
	)
	switch {
	case errors.As(err, &slow):
		return Problem{Type: ProblemTypeBase + "request_timeout", Title: http.StatusText(http.StatusRequestTimeout),
			Status: http.StatusRequestTimeout, Detail: slow.Error()}, false
	case errors.As(err, &maxed):
		err = errs.Ef(errs.TooLarge, "request body is larger than %d bytes", maxed.Limit)
	case errors.As(err, &he) && he.Code == http.StatusMethodNotAllowed:
		// Not an errs kind: the route exists, the method does not (Allow is set by echo).
		return Problem{Type: ProblemTypeBase + "method_not_allowed", Title: http.StatusText(he.Code),
			Status: he.Code, Detail: "the method is not allowed on this resource"}, false
	case errors.As(err, &he):
		err = fromEcho(he)
	case errors.Is(err, context.DeadlineExceeded):
		err = errs.Wrap(errs.Unavailable, "the request timed out", err)
	}
	e, ok := errs.As(err)
	if !ok {
		e = errs.Wrap(errs.Internal, "", err)
	}
	status := StatusOf(e.Kind)
	p = Problem{
		Type:   ProblemTypeBase + e.Kind.String(),
		Title:  http.StatusText(status),
		Status: status,
		Detail: e.Detail,
	}
	if e.Kind == errs.Internal {
		p.Detail = internalDetail
		return p, true
	}
	fields, more := capFields(e.Fields)
	for _, f := range fields {
		p.Errors = append(p.Errors, FieldProblem{Field: f.Field, Message: f.Message})
	}
	if more > 0 {
		p.Detail = fmt.Sprintf("%d problems were found; errors lists the first %d, %d more are not listed",
			len(fields)+more, len(fields), more)
	}
	return p, status >= 500
}

// fromEcho converts echo's own errors (no route, bind failures, body limit) to a kind.
func fromEcho(he *echo.HTTPError) error {
	msg := ""
	if s, ok := he.Message.(string); ok {
		msg = s
	} else if e, ok := he.Message.(error); ok {
		msg = e.Error()
	} else if he.Message != nil {
		msg = fmt.Sprint(he.Message)
	}
	kind, ok := kindOfStatus(he.Code)
	if !ok || he.Code >= 500 {
		return errs.Wrap(errs.Internal, "", he)
	}
	if msg == http.StatusText(he.Code) {
		msg = ""
	}
	return errs.Wrap(kind, msg, he.Internal)
}

// errorHandler renders every error as problem+json and logs the internal ones.
func errorHandler(service string, log *slog.Logger, hints *pathHints) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		req := c.Request()
		p, internal := problemFor(err)
		p.Instance = req.URL.Path
		p.RequestID = c.Response().Header().Get(HeaderRequestID)
		if p.Status == http.StatusNotFound && routeMiss(err) {
			if d := hints.detail(req.Method, req.URL.Path); d != "" {
				p.Detail = d
			}
		}
		if p.Status == http.StatusRequestTimeout {
			c.Response().Header().Set(echo.HeaderConnection, "close")
		}
		// A probe's 503 is an expected state, already logged once as "not ready".
		notReady := quietPaths[req.URL.Path] && p.Status == http.StatusServiceUnavailable
		if internal && !notReady {
			log.ErrorContext(req.Context(), "request failed", slog.String("error", err.Error()),
				slog.String("method", req.Method), slog.String("path", req.URL.Path))
		}
		if p.Status == http.StatusUnauthorized || p.Status == http.StatusForbidden {
			if h := authenticateHeader(service, err, p); h != "" {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, h)
			}
		}
		writeProblem(c, p)
	}
}

// authenticateHeader builds the RFC 6750 challenge for a 401 (always) or a 403 from a scope check.
func authenticateHeader(service string, err error, p Problem) string {
	code := "invalid_token"
	var ch *challenge
	if errors.As(err, &ch) {
		code = ch.code
	} else if p.Status == http.StatusForbidden {
		return "" // a permission refusal of the application, not a token problem
	}
	h := fmt.Sprintf(`Bearer realm=%q`, quoteSafe(service))
	if code != "" {
		h += fmt.Sprintf(`, error=%q, error_description=%q`, code, quoteSafe(p.Detail))
	}
	return h
}

// quoteSafe keeps a value inside an RFC 7230 quoted-string without escapes.
func quoteSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r == 0x7f {
			return '\''
		}
		return r
	}, s)
}

func writeProblem(c echo.Context, p Problem) {
	body, _ := json.Marshal(p)
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(p.Status)
		return
	}
	_ = c.Blob(p.Status, ProblemContentType, body)
}
