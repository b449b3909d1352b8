package domain

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

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

// MaxPreviewImageBytes bounds the image of an SVG preview request (the contract's 20 MiB).
const MaxPreviewImageBytes = 20 << 20

// Errors of SVG previews.
var (
	ErrImageTooLarge      = errs.Ef(errs.TooLarge, "the image is larger than %d bytes", MaxPreviewImageBytes)
	ErrSvgPreviewNotFound = errs.E(errs.NotFound, "SVG preview not found")
	ErrNoScenePreview     = errs.E(errs.NotFound, "no SVG preview was generated for this scene yet")
)

// PreviewStore keeps SVG previews and writes their commands and events to the outbox.
type PreviewStore interface {
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
