package main

import (
	"time"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/idempotency"
)

// serviceName is the service's name in logs, traces and the names of its queues.
const serviceName = "content"

// Config is the service's configuration, from the environment only. Every default is written
// once, in its envDefault tag; `content help` and the README's table list them.
type Config struct {
	config.Common
	HTTPAddr    string `env:"HTTP_ADDR" envDefault:":8081" desc:"address the HTTP server listens on"`
	DatabaseURL string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/content?sslmode=disable" desc:"PostgreSQL connection URL of the content database" secret:"true"`

	S3Endpoint        string `env:"S3_ENDPOINT" envDefault:"http://127.0.0.1:9000" desc:"S3-compatible endpoint (path-style addressing); MinIO in development"`
	S3Region          string `env:"S3_REGION" envDefault:"us-east-1" desc:"S3 region"`
	S3AccessKey       string `env:"S3_ACCESS_KEY" envDefault:"minioadmin" desc:"S3 access key" secret:"true"`
	S3SecretKey       string `env:"S3_SECRET_KEY" envDefault:"minioadmin" desc:"S3 secret key" secret:"true"`
	S3PublicURL       string `env:"S3_PUBLIC_URL" desc:"base of the object URLs recorded (aep_file_url, file_url, svg_url ...); default S3_ENDPOINT"`
	S3BucketTemplates string `env:"S3_BUCKET_TEMPLATES" envDefault:"templates" desc:"bucket of AEP files (created at start if absent)"`
	S3BucketMedia     string `env:"S3_BUCKET_MEDIA" envDefault:"media" desc:"bucket of font files and SVG previews (created at start if absent)"`
	S3PartSize        int64  `env:"S3_UPLOAD_PART_SIZE" envDefault:"8388608" desc:"part size of streamed uploads in bytes (min 5 MiB); memory per upload is about (concurrency+1) x part size"`
	S3Concurrency     int    `env:"S3_UPLOAD_CONCURRENCY" envDefault:"2" desc:"parts of one streamed upload in flight at once"`

	AepMaxSingleUpload int64         `env:"AEP_MAX_SINGLE_UPLOAD_BYTES" envDefault:"536870912" desc:"largest AEP file of PUT /projects/{id}/aep (larger: 413, use start-upload)"`
	AepChunkSize       int64         `env:"AEP_CHUNK_SIZE_BYTES" envDefault:"67108864" desc:"part size of multipart AEP uploads (5 MiB to 5 GiB; grown for files that would need more than 10,000 parts)"`
	AepPartURLTTL      time.Duration `env:"AEP_PART_URL_TTL" envDefault:"24h" desc:"validity of the presigned part URLs"`
	AepUploadMaxAge    time.Duration `env:"AEP_UPLOAD_MAX_AGE" envDefault:"168h" desc:"age after which the sweeper aborts a multipart upload never completed"`
	MediaSweepInterval time.Duration `env:"MEDIA_SWEEP_INTERVAL" envDefault:"1h" desc:"how often the sweeper runs (stale multipart uploads, previews stuck in Generating)"`

	SvgPreviewTimeout time.Duration `env:"SVG_PREVIEW_TIMEOUT" envDefault:"30m" desc:"a preview still Generating this long after its request is failed by the sweeper"`
	SvgAIBaseURL      string        `env:"SVG_AI_BASE_URL" desc:"chat-completions base URL of a vision model for SVG previews (POST {base}/v1/chat/completions); unset: built-in detector only"`
	SvgAIAPIKey       string        `env:"SVG_AI_API_KEY" desc:"bearer key of the vision model" secret:"true"`
	SvgAIModel        string        `env:"SVG_AI_MODEL" desc:"model name sent to the vision model (required with SVG_AI_BASE_URL)"`
	SvgAITimeout      time.Duration `env:"SVG_AI_TIMEOUT" envDefault:"60s" desc:"timeout of one vision model request (then the built-in detector answers)"`

	// EnvConfig is the bus: content.svg_preview.generated.v1 goes out on EVENTS_EXCHANGE, the
	// preview-generation commands through the queue <BUS_SERVICE>.events.
	bus.EnvConfig

	idempotency.Env

	EventsDefaultTenant string `env:"EVENTS_DEFAULT_TENANT_ID" envDefault:"00000000-0000-0000-0000-000000000001" desc:"tenant_id of events caused by a caller without a tenant (a service token bound to none)"`
}

func loadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	return c, err
}
