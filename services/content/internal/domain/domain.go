// Package domain holds the content service's entities, the rules that apply to them, the errors
// they raise (pkg/errs kinds) and the ports (Store, ObjectStore) the application needs of its
// adapters. It imports no transport, database or broker package.
package domain

// set copies *v to *dst when v is given: a patch leaves the fields it does not carry as they are.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
