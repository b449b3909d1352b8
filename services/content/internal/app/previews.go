package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/domain/svgpreview"
)

// PreviewRequest asks for an SVG preview of an image.
type PreviewRequest struct {
	TargetType domain.PreviewTarget
	TargetID   uuid.UUID
	Image      []byte
	// ColorKeys are the elements to find; nil means every colour element of the target.
	ColorKeys []domain.ColorKey
}

// ErrNotAnImage answers an image that is not PNG, JPEG or WebP.
var ErrNotAnImage = errs.E(errs.UnsupportedMedia, "the image is not a PNG, JPEG or WebP file (checked by its first bytes)")

var imageExt = map[string]string{svgpreview.PNG: "png", svgpreview.JPEG: "jpg", svgpreview.WebP: "webp"}

// validateKeys checks the requested colour keys: non-empty, unique keys and #rrggbb colours.
func validateKeys(keys []domain.ColorKey) error {
	var bad []errs.FieldError
	seen := map[string]bool{}
	for i, k := range keys {
		switch {
		case k.ElementKey == "":
			bad = append(bad, errs.Field(fmt.Sprintf("body.color_keys[%d].element_key", i), "is required"))
		case seen[k.ElementKey]:
			bad = append(bad, errs.Field(fmt.Sprintf("body.color_keys[%d].element_key", i), "is repeated"))
		}
		seen[k.ElementKey] = true
		if !svgpreview.ValidColor(k.CurrentColor) {
			bad = append(bad, errs.Field(fmt.Sprintf("body.color_keys[%d].current_color", i), "must be a colour like #ff8800"))
		}
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// RequestPreview stores the image, records the preview in status Generating and, in the same
// transaction, writes its generation command to the outbox: once committed, the job survives
// a restart of the service or of the broker.
func (a *App) RequestPreview(ctx context.Context, actor domain.Actor, req PreviewRequest) (domain.SvgPreview, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.SvgPreview{}, err
	}
	if req.TargetType != domain.TargetProject && req.TargetType != domain.TargetScene {
		return domain.SvgPreview{}, invalidField("body.target_type", "must be project or scene")
	}
	if err := validateKeys(req.ColorKeys); err != nil {
		return domain.SvgPreview{}, err
	}
	if len(req.Image) > domain.MaxPreviewImageBytes {
		return domain.SvgPreview{}, domain.ErrImageTooLarge
	}
	mediaType, ok := svgpreview.Sniff(req.Image)
	if !ok {
		return domain.SvgPreview{}, ErrNotAnImage
	}
	p := domain.SvgPreview{TargetType: req.TargetType, TargetID: req.TargetID, Status: domain.PreviewGenerating,
		SourceMediaType: mediaType, RequestedBy: actor.Name, TenantID: a.tenantOf(actor), CreatedAt: a.now()}
	if req.TargetType == domain.TargetProject {
		if _, err := a.visibleProject(ctx, actor, req.TargetID); err != nil {
			return domain.SvgPreview{}, err
		}
		p.ProjectID = &req.TargetID
	} else {
		s, err := a.visibleScene(ctx, actor, req.TargetID)
		if err != nil {
			return domain.SvgPreview{}, err
		}
		p.ProjectID, p.SceneID = &s.ProjectID, &req.TargetID
	}
	p.ColorKeys = req.ColorKeys
	if p.ColorKeys == nil {
		all, err := a.store.ColorKeysOf(ctx, req.TargetType, req.TargetID)
		if err != nil {
			return domain.SvgPreview{}, err
		}
		p.ColorKeys = []domain.ColorKey{}
		for _, k := range all {
			if svgpreview.ValidColor(k.CurrentColor) { // an element without a usable default colour cannot be matched
				p.ColorKeys = append(p.ColorKeys, k)
			}
		}
	}
	id, err := newID()
	if err != nil {
		return domain.SvgPreview{}, err
	}
	p.ID = id
	bucket := a.cfg.MediaBucket
	p.SourceImageKey = fmt.Sprintf("svg-previews/%s/source.%s", id, imageExt[mediaType])
	if _, _, err := a.objects.Put(ctx, bucket, p.SourceImageKey, mediaType, bytes.NewReader(req.Image)); err != nil {
		return domain.SvgPreview{}, err
	}
	p.SourceImageURL = a.objects.URL(bucket, p.SourceImageKey)
	err = a.store.InTx(ctx, func(tx domain.Store) error {
		if err := tx.InsertSvgPreview(ctx, p); err != nil {
			return err
		}
		return tx.EnqueuePreviewJob(ctx, p.TenantID, p.ID)
	})
	if err != nil {
		a.deleteQuietly(ctx, bucket, p.SourceImageKey)
		return domain.SvgPreview{}, err
	}
	return p, nil
}

// GetPreview reads a preview the actor may see (its project visible to them).
func (a *App) GetPreview(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.SvgPreview, error) {
	p, err := a.store.GetSvgPreview(ctx, id)
	if err != nil {
		return domain.SvgPreview{}, err
	}
	if p.ProjectID != nil {
		if _, err := a.visibleProject(ctx, actor, *p.ProjectID); err != nil {
			if errs.KindOf(err) == errs.NotFound {
				return domain.SvgPreview{}, domain.ErrSvgPreviewNotFound
			}
			return domain.SvgPreview{}, err
		}
	}
	return p, nil
}

// ScenePreview reads the current (latest requested) preview of a scene.
func (a *App) ScenePreview(ctx context.Context, actor domain.Actor, sceneID uuid.UUID) (domain.SvgPreview, error) {
	if _, err := a.visibleScene(ctx, actor, sceneID); err != nil {
		return domain.SvgPreview{}, err
	}
	return a.store.LatestSceneSvgPreview(ctx, sceneID)
}

// PreviewJobConsumer is the inbox name of the preview job handler.
const PreviewJobConsumer = "content.svg-preview-jobs"

// HandlePreviewJob runs the generation command of a preview: it generates the SVG and the
// thumbnail, stores them, and moves the preview to Ready -- or to Failed when the input is at
// fault -- together with the content.svg_preview.generated.v1 event in one transaction that
// also records the job id (inbox). A redelivered or duplicate job changes nothing; an error
// (storage or database unavailable) is returned for the bus to retry.
func (a *App) HandlePreviewJob(ctx context.Context, jobID uuid.UUID, job domain.PreviewJobData) error {
	p, err := a.store.GetSvgPreview(ctx, job.SvgPreviewID)
	if errs.KindOf(err) == errs.NotFound {
		a.log.InfoContext(ctx, "SVG preview job for a preview that no longer exists", slog.String("svg_preview_id", job.SvgPreviewID.String()))
		return nil
	}
	if err != nil {
		return err
	}
	if p.Status != domain.PreviewGenerating {
		return nil
	}
	out, reason, err := a.generate(ctx, p)
	if err != nil {
		return err
	}
	_, err = a.store.HandleOnce(ctx, PreviewJobConsumer, jobID, func(tx domain.Store) error {
		return a.finish(ctx, tx, p, out, reason)
	})
	return err
}

// generate makes and stores the preview's outputs; reason is set (and out nil) when the input
// cannot give a preview.
func (a *App) generate(ctx context.Context, p domain.SvgPreview) (*domain.PreviewOutput, string, error) {
	bucket := a.cfg.MediaBucket
	body, err := a.objects.Get(ctx, bucket, p.SourceImageKey)
	if errs.KindOf(err) == errs.NotFound {
		return nil, "the source image is missing from object storage", nil
	}
	if err != nil {
		return nil, "", err
	}
	data, err := readAllBounded(body, domain.MaxPreviewImageBytes, domain.ErrImageTooLarge)
	_ = body.Close()
	if err != nil {
		if errs.KindOf(err) == errs.TooLarge {
			return nil, err.Error(), nil
		}
		return nil, "", err
	}
	keys := make([]svgpreview.ColorKey, len(p.ColorKeys))
	for i, k := range p.ColorKeys {
		keys[i] = svgpreview.ColorKey{ElementKey: k.ElementKey, CurrentColor: k.CurrentColor}
	}
	res, err := a.previews.Generate(ctx, data, keys)
	if errors.Is(err, svgpreview.ErrUnsupportedImage) || errors.Is(err, svgpreview.ErrInvalidKeys) {
		return nil, err.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	// Fixed keys: a job run again overwrites the same objects.
	svgKey := fmt.Sprintf("svg-previews/%s/preview.svg", p.ID)
	thumbKey := fmt.Sprintf("svg-previews/%s/thumbnail.png", p.ID)
	if _, _, err := a.objects.Put(ctx, bucket, svgKey, "image/svg+xml", bytes.NewReader(res.SVG)); err != nil {
		return nil, "", err
	}
	if _, _, err := a.objects.Put(ctx, bucket, thumbKey, "image/png", bytes.NewReader(res.Thumbnail)); err != nil {
		return nil, "", err
	}
	out := &domain.PreviewOutput{SvgURL: a.objects.URL(bucket, svgKey), ThumbnailURL: a.objects.URL(bucket, thumbKey),
		Width: res.Width, Height: res.Height, GeneratedByAI: res.GeneratedByAI, QualityScore: res.Quality,
		Zones: make([]domain.ColorZone, len(res.Zones))}
	for i, z := range res.Zones {
		out.Zones[i] = domain.ColorZone{ElementKey: z.ElementKey, DetectedColor: z.Color, BBox: z.BBox}
	}
	return out, "", nil
}

// finish moves a Generating preview to Ready (out) or Failed (reason) and writes the event,
// in tx. A preview that is not Generating any more is left alone, with no event.
func (a *App) finish(ctx context.Context, tx domain.Store, p domain.SvgPreview, out *domain.PreviewOutput, reason string) error {
	moved, err := tx.FinishSvgPreview(ctx, p.ID, out, reason, a.now())
	if err != nil || !moved {
		return err
	}
	return tx.PublishPreviewGenerated(ctx, domain.PreviewGenerated{Preview: p, Output: out, Reason: reason})
}

// SweepStuckPreviews fails the previews still Generating PreviewTimeout after they were
// requested (a job that went to the dead-letter queue, or was lost with a GoChannel), with
// their event. It returns how many it failed.
func (a *App) SweepStuckPreviews(ctx context.Context) (int, error) {
	stuck, err := a.store.ListStuckSvgPreviews(ctx, a.now().Add(-a.cfg.PreviewTimeout), 100)
	if err != nil {
		return 0, err
	}
	n := 0
	reason := fmt.Sprintf("generation did not finish within %s", a.cfg.PreviewTimeout)
	for _, p := range stuck {
		err := a.store.InTx(ctx, func(tx domain.Store) error { return a.finish(ctx, tx, p, nil, reason) })
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
