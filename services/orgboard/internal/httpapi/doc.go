// Package httpapi implements the generated strict server of the orgboard API: each handler turns
// the request into an app call with the caller as a domain.Actor and the result into the
// generated response type.
package httpapi
