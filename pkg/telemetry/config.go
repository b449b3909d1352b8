package telemetry

import "github.com/videotpl/platform/pkg/config"

// ConfigOf is the telemetry configuration the shared environment variables give
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG).
func ConfigOf(c config.Common) Config {
	return Config{OTLPEndpoint: c.OTLPEndpoint, Sampler: c.TracesSampler, SamplerArg: c.SamplerArg}
}
