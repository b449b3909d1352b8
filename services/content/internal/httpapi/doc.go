// Package httpapi implements the generated strict server interface of the content API
// (gen/content.StrictServerInterface). Handlers are thin: they turn the generated request into a
// call of the application (internal/app) with the caller as a domain.Actor, and the result into
// the generated response type. Failures are returned as errors (pkg/errs kinds); pkg/httpx
// renders them as problem+json. Authentication and request validation against the spec happen
// in pkg/httpx before a handler runs.
//
// Files are grouped by resource: templates.go (templates, containers), projects.go, scenes.go
// (scenes and elements), presets.go, library.go (fonts, music, categories, tags),
// favorites.go, cms.go (blogs, comments, slides, home events, settings, render servers).
//
// # Extension point for the media pipeline
//
// The upload and SVG-preview operations (PUT /projects/{id}/aep, POST .../aep/start-upload,
// POST .../aep/complete-upload, POST /fonts, POST /svg-previews/generate,
// GET /svg-previews/{id}, GET /scenes/{id}/svg-preview) live in media.go, which the media
// pipeline owns. media.go declares the type Media (what those handlers need: S3, the job
// queue ...) and the seven handler methods on *Server. Server holds the catalog core's
// *app.App and the Media value passed to New (nil until the pipeline is wired), so the
// pipeline replaces media.go and adds its own app/store files without editing the core's
// files; the binary's wiring passes its Media to New.
package httpapi
