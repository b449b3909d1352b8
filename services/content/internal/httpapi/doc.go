// Package httpapi implements the generated strict server interface of the content API
// (gen/content.StrictServerInterface). Handlers are thin: they turn the generated request into a
// call of the application (internal/app) with the caller as a domain.Actor, and the result into
// the generated response type. Failures are returned as errors (pkg/errs kinds); pkg/httpx
// renders them as problem+json. Authentication and request validation against the spec happen
// in pkg/httpx before a handler runs.
//
// Files are grouped by resource: templates.go (templates, containers), projects.go, scenes.go
// (scenes and elements), presets.go, library.go (fonts, music, categories, tags),
// favorites.go, cms.go (blogs, comments, slides, home events, settings, render servers), media.go
// (AEP uploads, font uploads, SVG previews).
package httpapi
