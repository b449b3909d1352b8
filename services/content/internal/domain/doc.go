// Package domain holds the content service's entities, the rules that apply to them, the errors
// they raise (pkg/errs kinds) and the Store interface the application needs. It imports no
// transport, database or broker package.
package domain
