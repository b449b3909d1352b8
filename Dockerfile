# syntax=docker/dockerfile:1
# The image of every service: a static Go binary on distroless, running as a non-root user.
# Build from the repository root (the context is the workspace; .dockerignore trims it), naming
# the service and its API port (its HTTP_ADDR default); `make images` passes all four:
#
#   docker build --build-arg SERVICE=content --build-arg PORT=8081 \
#     --build-arg VERSION="$(git describe --tags --always --dirty)" \
#     --build-arg REVISION="$(git rev-parse HEAD)" -t videotpl/content:dev .
#
# VERSION and REVISION are stamped into the binary (/healthz and the build_info metric report
# them) and into the image labels. The image serves the API by default (CMD ["serve"]); the
# Kubernetes init container and the compose migrate step run it with the argument "migrate".
# e2e/dockerfile_test.go runs the build stages below without Docker and checks this file.
#
# Base images are pinned by digest (multi-arch index) beside their tag; bump both together.

ARG GO_IMAGE=golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab

FROM ${GO_IMAGE} AS build
ARG SERVICE
ARG PORT
ARG VERSION=unknown
ARG REVISION=unknown
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
RUN test -n "$SERVICE" && test -n "$PORT" || \
    { echo "--build-arg SERVICE=content|orgboard|renderevents and PORT (8081|8082|8083) are required" >&2; exit 1; }
# The whole workspace's go.mod files (go.work names them all), so the binary is built with
# the same module versions the tests ran with; then the sources of gen, pkg, the OpenAPI
# documents (the binary serves its own at /openapi.yaml) and the service.
COPY go.work go.work.sum ./
COPY gen/go.* gen/
COPY pkg/go.* pkg/
COPY services/content/go.* services/content/
COPY services/orgboard/go.* services/orgboard/
COPY services/renderevents/go.* services/renderevents/
COPY specs/go.* specs/
COPY e2e/go.* e2e/
COPY gen/ gen/
COPY pkg/ pkg/
COPY specs/*.go specs/
COPY specs/openapi/ specs/openapi/
COPY services/${SERVICE}/ services/${SERVICE}/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath \
      -ldflags="-s -w -X github.com/videotpl/platform/pkg/buildinfo.version=${VERSION} -X github.com/videotpl/platform/pkg/buildinfo.revision=${REVISION}" \
      -o bin/service ./services/${SERVICE}/cmd/${SERVICE}

# The container health check (distroless has no shell or curl): one standard-library file.
FROM ${GO_IMAGE} AS probe
WORKDIR /probe
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off
COPY tools/healthprobe/main.go ./
RUN --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w" -o healthprobe ./main.go

FROM ${RUNTIME_IMAGE}
ARG SERVICE
ARG PORT
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.source="https://github.com/videotpl/platform" \
      org.opencontainers.image.title="${SERVICE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /src/bin/service /service
COPY --from=probe /probe/healthprobe /healthprobe
# distroless's "nonroot" user, numeric so Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
ENV HTTP_ADDR=:${PORT}
EXPOSE ${PORT} 9090
# /readyz on the port of HTTP_ADDR.
HEALTHCHECK --interval=10s --timeout=4s --start-period=20s --retries=3 CMD ["/healthprobe"]
ENTRYPOINT ["/service"]
CMD ["serve"]
