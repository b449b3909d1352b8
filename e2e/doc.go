// Package e2e holds the platform's end-to-end checks, run by `make test`:
//
//   - dockerfile_test.go: each service Dockerfile's build stages run without Docker (same
//     COPY set after .dockerignore, same commands) and its invariants hold (multi-stage,
//     pinned bases, non-root, static binary); the binaries built so are the ones the other
//     tests run.
//   - manifests_test.go: every Kubernetes manifest under services/<s>/deploy decodes strictly
//     into the API types, the kustomize base and example overlay render, and the invariants
//     hold (probes, non-root read-only, limits, pinned images, HPA/PDB/Job wiring).
//   - compose_test.go: compose.yaml brings every service up in order (depends_on targets,
//     health checks, one-shot steps) with variables the services read.
//   - shutdown_test.go: SIGTERM loses neither in-flight requests nor in-flight messages.
//   - docs_test.go: each service binary's /docs renders every operation of its spec in headless
//     Chromium without a console error, shows limits, defaults, enums and samples, and its
//     /openapi.yaml opens as text; screenshots go to bin/docs-screenshots/.
//   - sdk_test.go: `make sdk` builds the TypeScript SDKs for import and require(); an ES module
//     program, a CommonJS program and the Go examples (examples/<s>) call a running service
//     through them; a program written from each spec calls every operation with only its
//     required inputs and compiles against the SDKs (tsprogram_test.go writes it).
//   - guards_test.go: every operation of the three specs, against one running instance of each
//     service, answers each guarded input class (NUL, invalid UTF-8, over-long, trailing data,
//     wrong uuid/date-time, unknown property) with a 400 naming the field, and stays healthy.
//
// examples/ is a module of its own, outside the workspace: the Go clients of gen/ used the way a
// team's module uses them.
package e2e
