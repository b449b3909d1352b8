package main

// This file wires the media pipeline (AEP uploads, font files, SVG previews): object storage,
// the preview generator, the outbox forwarder and the preview-job consumer, and the sweeper.
// The catalog core only calls newMedia.

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/telemetry"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/busapi"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
	"github.com/videotpl/platform/services/content/internal/store"
	"github.com/videotpl/platform/services/content/internal/store/vision"
)

// MediaConfig holds the media pipeline's environment variables.
type MediaConfig struct {
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

	BusEventsExchange string `env:"AMQP_EVENTS_EXCHANGE" envDefault:"events" desc:"topic exchange of events and of the service's preview-generation commands"`
	BusService        string `env:"AMQP_SERVICE_NAME" envDefault:"content" desc:"names the service's durable queues <name>.events (preview commands) and <name>.dead-letter"`

	EventsDefaultTenant string `env:"EVENTS_DEFAULT_TENANT_ID" envDefault:"00000000-0000-0000-0000-000000000001" desc:"tenant_id of events caused by a caller without a tenant (a service token bound to none)"`
}

// mediaDeps is what the pipeline may build on.
type mediaDeps struct {
	Config    MediaConfig
	Common    config.Common
	Pool      *pgxpool.Pool
	Logger    *slog.Logger
	Telemetry *telemetry.Telemetry
}

// mediaParts is the running application with what it needs to stop.
type mediaParts struct {
	App *app.App
	// Ready checks the object storage.
	Ready func(ctx context.Context) error
	Close func()
}

// mediaMigrationSets are the migration sets the pipeline adds: the bus's outbox and inbox.
func mediaMigrationSets() []pgxdb.Migrations { return []pgxdb.Migrations{bus.Migrations()} }

// newMedia starts the media pipeline: buckets, the outbox forwarder, the preview-job consumer
// (the service's durable queue content.events) and the sweeper.
func newMedia(ctx context.Context, d mediaDeps) (mediaParts, error) {
	c, log := d.Config, d.Logger
	tenant, err := uuid.Parse(c.EventsDefaultTenant)
	if err != nil || tenant == uuid.Nil {
		return mediaParts{}, fmt.Errorf("EVENTS_DEFAULT_TENANT_ID must be a non-nil uuid: %q", c.EventsDefaultTenant)
	}
	objects, err := store.NewS3(store.S3Config{Endpoint: c.S3Endpoint, Region: c.S3Region, AccessKey: c.S3AccessKey,
		SecretKey: c.S3SecretKey, PublicURL: c.S3PublicURL, PartSize: c.S3PartSize, Concurrency: c.S3Concurrency})
	if err != nil {
		return mediaParts{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for _, b := range []string{c.S3BucketTemplates, c.S3BucketMedia} {
		if err := objects.EnsureBucket(sctx, b); err != nil {
			return mediaParts{}, err
		}
	}
	// A safety net beside the sweeper where the server supports it (AWS S3 does; MinIO refuses
	// the rule and expires stale uploads by its own api.stale_uploads_expiry).
	days := int32(max(1, c.AepUploadMaxAge/(24*time.Hour))) //nolint:gosec // small
	if err := objects.EnsureAbortRule(sctx, c.S3BucketTemplates, "projects/", days); err != nil {
		log.Info("the object storage refused the lifecycle rule that aborts incomplete uploads; the sweeper aborts them",
			slog.String("error", err.Error()))
	}

	var model svgpreview.ZoneSource
	if c.SvgAIBaseURL != "" && c.SvgAIModel != "" {
		model = &vision.Model{BaseURL: c.SvgAIBaseURL, APIKey: c.SvgAIAPIKey, Model: c.SvgAIModel, Timeout: c.SvgAITimeout}
	}
	media := app.New(store.New(d.Pool), objects, svgpreview.New(svgpreview.Options{}, model, log),
		app.Config{TemplatesBucket: c.S3BucketTemplates, MediaBucket: c.S3BucketMedia,
			AepMaxSingleUpload: c.AepMaxSingleUpload, AepChunkSize: c.AepChunkSize, PartURLTTL: c.AepPartURLTTL,
			AepUploadMaxAge: c.AepUploadMaxAge, PreviewTimeout: c.SvgPreviewTimeout, DefaultTenantID: tenant}, log)

	var metrics bus.Metrics
	if d.Telemetry != nil {
		m, err := bus.NewPrometheusMetrics(d.Telemetry.Registry)
		if err != nil {
			return mediaParts{}, err
		}
		metrics = m
	}
	mb, err := busapi.Start(ctx, bus.Config{AMQPURL: d.Common.AMQPURL, Service: c.BusService, EventsExchange: c.BusEventsExchange}, d.Pool,
		media.HandlePreviewJob, metrics, log)
	if err != nil {
		return mediaParts{}, err
	}
	sweepCtx, stopSweep := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { media.RunSweeper(sweepCtx, c.MediaSweepInterval) })

	return mediaParts{
		App:   media,
		Ready: func(ctx context.Context) error { return objects.Ping(ctx, c.S3BucketTemplates) },
		Close: func() {
			stopSweep()
			wg.Wait()
			if err := mb.Stop(); err != nil {
				log.Warn("stopping the media bus", slog.String("error", err.Error()))
			}
		},
	}, nil
}

// ready checks the database and the pipeline's dependencies.
func (m mediaParts) ready(pool *pgxpool.Pool) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := pool.Ping(ctx); err != nil {
			return err
		}
		if m.Ready != nil {
			return m.Ready(ctx)
		}
		return nil
	}
}
