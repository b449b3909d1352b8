// Package httpapi serves the content API: it implements the generated strict server interface
// (gen/contentserver.StrictServerInterface). Handlers are thin: they turn the generated request into
// a call of the application (internal/app) with the caller as a domain.Actor, and the result
// into the generated response type. Failures are returned as errors (pkg/errs kinds); pkg/httpx
// renders them as problem+json. Authentication and request validation against the spec happen
// in pkg/httpx before a handler runs.
//
// Each file holds one resource group, under the same name as in internal/app and
// internal/store (templates.go, containers.go, projects.go, scenes.go, elements.go, aep.go,
// previews.go ...). The two hottest reads write their JSON by hand (templatesjson.go,
// projectsjson.go, on the writer of jsonwriter.go); multipart.go reads the upload bodies.
package httpapi
