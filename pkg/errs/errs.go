// Package errs gives every layer one vocabulary for failures. Domain and application code
// return *Error values (or wrap them); the HTTP layer maps Kind to a problem+json status in
// exactly one place, and the store maps database codes to kinds in exactly one place.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies a failure by what the caller can do about it.
type Kind int

const (
	Internal         Kind = iota // a fault of ours; never shown in detail to the caller
	Invalid                      // the input is wrong (400)
	Unauthenticated              // no or bad credentials (401)
	Forbidden                    // authenticated but not allowed (403)
	NotFound                     // no such resource, or not visible to the caller (404)
	Conflict                     // conflicts with current state: unique key, duplicate, forbidden transition (409)
	TooLarge                     // body or file above its bound (413)
	UnsupportedMedia             // media type not accepted (415)
	Unprocessable                // well-formed but semantically refused, only where a contract asks (422)
	Unavailable                  // a dependency is down, or the work collided with concurrent work; the caller may retry (503)
	NotImplemented               // the operation is declared but not provided yet (501)
	Upstream                     // a server called on the caller's behalf failed, was unreachable or too slow (502)
)

var kindNames = map[Kind]string{
	Internal: "internal", Invalid: "invalid", Unauthenticated: "unauthenticated",
	Forbidden: "forbidden", NotFound: "not_found", Conflict: "conflict", TooLarge: "too_large",
	UnsupportedMedia: "unsupported_media", Unprocessable: "unprocessable",
	Unavailable: "unavailable", NotImplemented: "not_implemented", Upstream: "upstream",
}

func (k Kind) String() string { return kindNames[k] }

// FieldError names one offending input field, e.g. {"body.slug", "is already taken"}.
type FieldError struct {
	Field   string
	Message string
}

// Error is a classified failure with a message safe to show to the caller.
type Error struct {
	Kind   Kind
	Detail string
	Fields []FieldError
	Err    error // the cause, for logs only; never rendered to a client
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "; %s: %s", f.Field, f.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is match sentinel *Error values by identity, and bare kinds via KindOf.
func (e *Error) Is(target error) bool { return e == target }

// E builds an error of a kind with a caller-safe detail.
func E(kind Kind, detail string) *Error { return &Error{Kind: kind, Detail: detail} }

// Ef is E with formatting.
func Ef(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// Field names one invalid field.
func Field(field, message string) FieldError { return FieldError{Field: field, Message: message} }

// InvalidFields is a 400 naming every offending field.
func InvalidFields(fields ...FieldError) *Error {
	detail := "invalid input"
	if len(fields) == 1 {
		detail = fields[0].Field + ": " + fields[0].Message
	}
	return &Error{Kind: Invalid, Detail: detail, Fields: fields}
}

// Wrap attaches a cause (kept for logs) to a classified error.
func Wrap(kind Kind, detail string, cause error) *Error {
	return &Error{Kind: kind, Detail: detail, Err: cause}
}

// KindOf reports the kind of err: the Kind of the first *Error in its chain, else Internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// As returns the first *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
