package domain

import (
	"context"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// This file is the media pipeline's part of the domain: AEP files in object storage, font
// files and SVG colour previews, and the ports the pipeline needs (MediaStore, ObjectStore).

// AepFile is a project's AEP file in object storage.
type AepFile struct {
	URL  string
	Key  string
	MD5  string // hex
	Size int64
}

// AepUpload is a multipart AEP upload that was started and not completed yet.
type AepUpload struct {
	ID        uuid.UUID
	ProjectID uuid.UUID
	UploadID  string
	Bucket    string
	Key       string
	Filename  string
	TotalSize int64
	ChunkSize int64
	PartCount int
	CreatedAt time.Time
}

// CompletedPart is a part of a multipart upload as the client reports it.
type CompletedPart struct {
	Number int32
	ETag   string
}

// FontFile is a font with its stored file.
type FontFile struct {
	Font
	FileKey   string
	FileSize  int64
	Format    string // ttf, otf, woff, woff2
	CreatedAt time.Time
}

// PreviewStatus is the state of an SVG preview: Generating -> Ready | Failed.
type PreviewStatus string

// Statuses of an SVG preview.
const (
	PreviewGenerating PreviewStatus = "Generating"
	PreviewReady      PreviewStatus = "Ready"
	PreviewFailed     PreviewStatus = "Failed"
)

// PreviewTarget names what a preview is for.
type PreviewTarget string

// Targets of a preview.
const (
	TargetProject PreviewTarget = "project"
	TargetScene   PreviewTarget = "scene"
)

// ColorKey is a colour element to find in a preview's image, with its current colour.
type ColorKey struct {
	ElementKey   string `json:"element_key"`
	CurrentColor string `json:"current_color"`
}

// ColorZone is where a colour element was found: [x, y, width, height] in source pixels.
type ColorZone struct {
	ElementKey    string     `json:"element_key"`
	DetectedColor string     `json:"detected_color"`
	BBox          [4]float64 `json:"bbox"`
}

// SvgPreview is an SVG colour preview and the state of its generation.
type SvgPreview struct {
	ID         uuid.UUID
	TenantID   uuid.UUID
	TargetType PreviewTarget
	TargetID   uuid.UUID
	// ProjectID is the target project, or the project of the target scene.
	ProjectID *uuid.UUID
	// SceneID is set for scene targets.
	SceneID         *uuid.UUID
	Status          PreviewStatus
	Error           *string
	ColorKeys       []ColorKey
	SourceImageKey  string
	SourceImageURL  string
	SourceMediaType string
	Output          *PreviewOutput // set once Ready
	RequestedBy     string
	CreatedAt       time.Time
	FinishedAt      *time.Time
}

// PreviewOutput is what a Ready preview has.
type PreviewOutput struct {
	SvgURL        string
	ThumbnailURL  string
	Width, Height int
	GeneratedByAI bool
	QualityScore  float64
	Zones         []ColorZone
}

// PreviewGenerated is the event of a preview that finished: Ready with its output, or Failed
// with the reason. It is published as content.svg_preview.generated.v1.
type PreviewGenerated struct {
	Preview SvgPreview
	// Output is set when the preview is Ready; Reason says why it Failed otherwise.
	Output *PreviewOutput
	Reason string
}

// PreviewJob is the name (routing key) of the command that generates a preview. It travels
// like an event, through the outbox to the events exchange, and the content service's own
// queue is bound to it; its data is PreviewJobData.
const PreviewJob = "content.svg_preview.generate.v1"

// PreviewJobData is the data of a PreviewJob command.
type PreviewJobData struct {
	SvgPreviewID uuid.UUID `json:"svg_preview_id"`
}

// Bounds of uploaded files, as the contract states them.
const (
	// MaxFontBytes bounds a font file (POST /fonts).
	MaxFontBytes = 20 << 20
	// MaxPreviewImageBytes bounds the image of an SVG preview request.
	MaxPreviewImageBytes = 20 << 20
)

// Errors of the media pipeline.
var (
	ErrFontTooLarge       = errs.Ef(errs.TooLarge, "the font file is larger than %d bytes", MaxFontBytes)
	ErrImageTooLarge      = errs.Ef(errs.TooLarge, "the image is larger than %d bytes", MaxPreviewImageBytes)
	ErrSvgPreviewNotFound = errs.E(errs.NotFound, "SVG preview not found")
	ErrNoScenePreview     = errs.E(errs.NotFound, "no SVG preview was generated for this scene yet")
)

// MediaStore is the persistence of the media pipeline.
type MediaStore interface {
	// SetProjectAepFile records f on the project and returns the key of the file it replaced
	// ("" when none). ErrProjectNotFound when the project is gone.
	SetProjectAepFile(ctx context.Context, projectID uuid.UUID, f AepFile, at time.Time) (previousKey string, err error)
	InsertAepUpload(ctx context.Context, u AepUpload) error
	// GetAepUpload finds a pending upload of the project by its S3 upload id.
	GetAepUpload(ctx context.Context, projectID uuid.UUID, uploadID string) (AepUpload, error)
	DeleteAepUpload(ctx context.Context, id uuid.UUID) error
	ListStaleAepUploads(ctx context.Context, before time.Time, limit int) ([]AepUpload, error)

	InsertFont(ctx context.Context, f FontFile) error

	// ColorKeysOf lists the colour elements of a scene (scene colours) or of a project (shared
	// colours), each with its default colour as the current one.
	ColorKeysOf(ctx context.Context, target PreviewTarget, id uuid.UUID) ([]ColorKey, error)
	InsertSvgPreview(ctx context.Context, p SvgPreview) error
	GetSvgPreview(ctx context.Context, id uuid.UUID) (SvgPreview, error)
	LatestSceneSvgPreview(ctx context.Context, sceneID uuid.UUID) (SvgPreview, error)
	// FinishSvgPreview moves a Generating preview to Ready (out set) or Failed (reason set);
	// it reports false when the preview was not Generating any more.
	FinishSvgPreview(ctx context.Context, id uuid.UUID, out *PreviewOutput, reason string, at time.Time) (bool, error)
	ListStuckSvgPreviews(ctx context.Context, before time.Time, limit int) ([]SvgPreview, error)

	// PublishPreviewGenerated writes the event of a finished preview to the outbox (in the
	// transaction of InTx).
	PublishPreviewGenerated(ctx context.Context, e PreviewGenerated) error
	// EnqueuePreviewJob writes the generation command of a preview to the outbox (in the
	// transaction of InTx); the service's own queue receives it.
	EnqueuePreviewJob(ctx context.Context, tenantID, previewID uuid.UUID) error
}

// ObjectStore is the S3-compatible object storage.
type ObjectStore interface {
	// Put streams body to bucket/key (never holding the whole of it in memory) and returns
	// the bytes written and their hex MD5.
	Put(ctx context.Context, bucket, key, contentType string, body io.Reader) (size int64, md5hex string, err error)
	// Get opens an object; NotFound when absent.
	Get(ctx context.Context, bucket, key string) (io.ReadCloser, error)
	// Hash reads an object through and returns its size and hex MD5.
	Hash(ctx context.Context, bucket, key string) (size int64, md5hex string, err error)
	Delete(ctx context.Context, bucket, key string) error
	StartMultipart(ctx context.Context, bucket, key, contentType string) (uploadID string, err error)
	PresignPart(ctx context.Context, bucket, key, uploadID string, part int32, ttl time.Duration) (string, error)
	// CompleteMultipart assembles the parts; a wrong or missing part is an Invalid error and
	// the upload stays open. An upload already completed with the object present succeeds.
	CompleteMultipart(ctx context.Context, bucket, key, uploadID string, parts []CompletedPart) error
	AbortMultipart(ctx context.Context, bucket, key, uploadID string) error
	// URL is the address recorded for an object.
	URL(bucket, key string) string
}
