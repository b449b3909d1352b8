package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ColorKeysOf lists the colour elements of a scene or the shared colours of a project.
func (s *Store) ColorKeysOf(ctx context.Context, target domain.PreviewTarget, id uuid.UUID) ([]domain.ColorKey, error) {
	var out []domain.ColorKey
	if target == domain.TargetScene {
		rows, err := s.q.ColorKeysOfScene(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, domain.ColorKey{ElementKey: r.ElementKey, CurrentColor: r.DefaultColor})
		}
		return out, nil
	}
	rows, err := s.q.ColorKeysOfProject(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out = append(out, domain.ColorKey{ElementKey: r.ElementKey, CurrentColor: r.DefaultColor})
	}
	return out, nil
}

// InsertSvgPreview writes a new preview in status Generating.
func (s *Store) InsertSvgPreview(ctx context.Context, p domain.SvgPreview) error {
	keys, err := encode(p.ColorKeys)
	if err != nil {
		return err
	}
	return translate(s.q.InsertSvgPreview(ctx, contentdb.InsertSvgPreviewParams{
		ID: p.ID, TenantID: p.TenantID, TargetType: string(p.TargetType), TargetID: p.TargetID,
		ProjectID: p.ProjectID, SceneID: p.SceneID, ColorKeys: keys, SourceImageKey: p.SourceImageKey,
		SourceImageUrl: p.SourceImageURL, SourceMediaType: p.SourceMediaType, RequestedBy: p.RequestedBy,
		CreatedAt: p.CreatedAt,
	}), nil)
}

func previewFrom(r contentdb.SvgPreview) (domain.SvgPreview, error) {
	p := domain.SvgPreview{ID: r.ID, TenantID: r.TenantID, TargetType: domain.PreviewTarget(r.TargetType),
		TargetID: r.TargetID, ProjectID: r.ProjectID, SceneID: r.SceneID,
		Status: domain.PreviewStatus(r.Status), Error: r.Error, SourceImageKey: r.SourceImageKey,
		SourceImageURL: r.SourceImageUrl, SourceMediaType: r.SourceMediaType,
		RequestedBy: r.RequestedBy, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt}
	if err := decode(r.ColorKeys, &p.ColorKeys); err != nil {
		return p, err
	}
	if p.Status == domain.PreviewReady {
		out := &domain.PreviewOutput{}
		if r.SvgUrl != nil {
			out.SvgURL = *r.SvgUrl
		}
		if r.ThumbnailUrl != nil {
			out.ThumbnailURL = *r.ThumbnailUrl
		}
		if r.Width != nil && r.Height != nil {
			out.Width, out.Height = int(*r.Width), int(*r.Height)
		}
		if r.GeneratedByAi != nil {
			out.GeneratedByAI = *r.GeneratedByAi
		}
		if r.QualityScore != nil {
			out.QualityScore = *r.QualityScore
		}
		if err := decode(r.ColorZones, &out.Zones); err != nil {
			return p, err
		}
		p.Output = out
	}
	return p, nil
}

// GetSvgPreview reads a preview.
func (s *Store) GetSvgPreview(ctx context.Context, id uuid.UUID) (domain.SvgPreview, error) {
	r, err := s.q.GetSvgPreview(ctx, id)
	if err != nil {
		return domain.SvgPreview{}, translate(err, domain.ErrSvgPreviewNotFound)
	}
	return previewFrom(r)
}

// LatestSceneSvgPreview reads the scene's most recently requested preview.
func (s *Store) LatestSceneSvgPreview(ctx context.Context, sceneID uuid.UUID) (domain.SvgPreview, error) {
	r, err := s.q.LatestSceneSvgPreview(ctx, &sceneID)
	if err != nil {
		return domain.SvgPreview{}, translate(err, domain.ErrNoScenePreview)
	}
	return previewFrom(r)
}

// FinishSvgPreview moves a Generating preview to Ready (out) or Failed (reason).
func (s *Store) FinishSvgPreview(ctx context.Context, id uuid.UUID, out *domain.PreviewOutput, reason string, at time.Time) (bool, error) {
	var n int64
	var err error
	if out != nil {
		zones, eerr := encode(out.Zones)
		if eerr != nil {
			return false, eerr
		}
		w, h := i32(out.Width), i32(out.Height)
		n, err = s.q.FinishSvgPreviewReady(ctx, contentdb.FinishSvgPreviewReadyParams{
			ID: id, SvgUrl: &out.SvgURL, ThumbnailUrl: &out.ThumbnailURL, Width: &w, Height: &h,
			GeneratedByAi: &out.GeneratedByAI, QualityScore: &out.QualityScore, ColorZones: zones, FinishedAt: &at,
		})
	} else {
		n, err = s.q.FinishSvgPreviewFailed(ctx, contentdb.FinishSvgPreviewFailedParams{ID: id, Error: &reason, FinishedAt: &at})
	}
	return n == 1, err
}

// ListStuckSvgPreviews lists previews still Generating that were requested before the given time.
func (s *Store) ListStuckSvgPreviews(ctx context.Context, before time.Time, limit int) ([]domain.SvgPreview, error) {
	rows, err := s.q.ListStuckSvgPreviews(ctx, contentdb.ListStuckSvgPreviewsParams{CreatedAt: before, Limit: i32(limit)})
	if err != nil {
		return nil, err
	}
	out := make([]domain.SvgPreview, 0, len(rows))
	for _, r := range rows {
		p, err := previewFrom(r)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// PublishPreviewGenerated writes the preview's content.svg_preview.generated.v1 to the outbox.
func (s *Store) PublishPreviewGenerated(ctx context.Context, g domain.PreviewGenerated) error {
	tx, err := s.tx()
	if err != nil {
		return err
	}
	env, err := events.NewEvent(g.Preview.TenantID, generatedEvent(g))
	if err != nil {
		return err
	}
	return bus.PublishEventsInTx(ctx, tx, env)
}

// generatedEvent is the payload of content.svg_preview.generated.v1 for g.
func generatedEvent(g domain.PreviewGenerated) events.ContentSvgPreviewGeneratedV1Payload {
	p, out := g.Preview, g.Output
	src := p.SourceImageURL
	e := events.ContentSvgPreviewGeneratedV1Payload{
		SvgPreviewID: p.ID, TargetType: events.SvgPreviewTargetType(p.TargetType), TargetID: p.TargetID,
		ProjectID: p.ProjectID, SceneID: p.SceneID, SourceImageURL: &src,
	}
	if out == nil {
		reason := g.Reason
		e.Status, e.Error = events.SvgPreviewStatusFailed, &reason
		return e
	}
	e.Status = events.SvgPreviewStatusReady
	e.SvgURL, e.ThumbnailURL = &out.SvgURL, &out.ThumbnailURL
	e.QualityScore, e.GeneratedByAI, e.ColorZoneCount = &out.QualityScore, out.GeneratedByAI, len(out.Zones)
	return e
}

// EnqueuePreviewJob writes the generation command of a preview to the outbox.
func (s *Store) EnqueuePreviewJob(ctx context.Context, tenantID, previewID uuid.UUID) error {
	tx, err := s.tx()
	if err != nil {
		return err
	}
	env, err := bus.NewEnvelope(domain.PreviewJob, tenantID, domain.PreviewJobData{SvgPreviewID: previewID})
	if err != nil {
		return err
	}
	producer := events.ProducerContentService
	env.Producer = &producer
	return bus.PublishEventsInTx(ctx, tx, env)
}
