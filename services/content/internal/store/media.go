package store

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// HandleOnce runs fn in a transaction that records (consumer, jobID) in the inbox.
func (s *Store) HandleOnce(ctx context.Context, consumer string, jobID uuid.UUID, fn func(domain.Store) error) (bool, error) {
	return bus.HandleOnce(ctx, s.pool, consumer, jobID, func(ctx context.Context, tx pgx.Tx) error {
		return fn(&Store{pool: s.pool, db: tx, q: contentdb.New(tx), inTx: true})
	})
}

// tx is the store's transaction: the outbox is written in the transaction of the change.
func (s *Store) tx() (pgx.Tx, error) {
	tx, ok := s.db.(pgx.Tx)
	if !ok {
		return nil, errors.New("store: the outbox is written in a transaction (InTx)")
	}
	return tx, nil
}

// SetProjectAepFile records the project's AEP file and returns the key it replaced.
func (s *Store) SetProjectAepFile(ctx context.Context, projectID uuid.UUID, f domain.AepFile, at time.Time) (string, error) {
	prev, err := s.q.SetProjectAepFile(ctx, contentdb.SetProjectAepFileParams{
		ID: projectID, Url: &f.URL, Md5: &f.MD5, SizeBytes: &f.Size, Key: &f.Key, UpdatedAt: at,
	})
	return prev, translate(err, domain.ErrProjectNotFound)
}

func aepUploadFrom(r contentdb.AepUpload) domain.AepUpload {
	return domain.AepUpload{ID: r.ID, ProjectID: r.ProjectID, UploadID: r.UploadID, Bucket: r.Bucket,
		Key: r.Key, Filename: r.Filename, TotalSize: r.TotalSizeBytes, ChunkSize: r.ChunkSizeBytes,
		PartCount: int(r.PartCount), CreatedAt: r.CreatedAt}
}

// InsertAepUpload records a started multipart upload.
func (s *Store) InsertAepUpload(ctx context.Context, u domain.AepUpload) error {
	return s.q.InsertAepUpload(ctx, contentdb.InsertAepUploadParams{
		ID: u.ID, ProjectID: u.ProjectID, UploadID: u.UploadID, Bucket: u.Bucket, Key: u.Key,
		Filename: u.Filename, TotalSizeBytes: u.TotalSize, ChunkSizeBytes: u.ChunkSize,
		PartCount: i32(u.PartCount), CreatedAt: u.CreatedAt,
	})
}

// ErrUnknownUpload answers a completion naming no pending upload of the project.
var ErrUnknownUpload = invalid("body.upload_id", "is not an open upload of this project (unknown, completed or aborted)")

// GetAepUpload finds a pending upload of a project.
func (s *Store) GetAepUpload(ctx context.Context, projectID uuid.UUID, uploadID string) (domain.AepUpload, error) {
	r, err := s.q.GetAepUpload(ctx, contentdb.GetAepUploadParams{UploadID: uploadID, ProjectID: projectID})
	if err != nil {
		return domain.AepUpload{}, translate(err, ErrUnknownUpload)
	}
	return aepUploadFrom(r), nil
}

// DeleteAepUpload forgets a completed or aborted upload.
func (s *Store) DeleteAepUpload(ctx context.Context, id uuid.UUID) error {
	return s.q.DeleteAepUpload(ctx, id)
}

// ListStaleAepUploads lists uploads started before the given time.
func (s *Store) ListStaleAepUploads(ctx context.Context, before time.Time, limit int) ([]domain.AepUpload, error) {
	rows, err := s.q.ListStaleAepUploads(ctx, contentdb.ListStaleAepUploadsParams{CreatedAt: before, Limit: i32(limit)})
	if err != nil {
		return nil, err
	}
	out := make([]domain.AepUpload, len(rows))
	for i, r := range rows {
		out[i] = aepUploadFrom(r)
	}
	return out, nil
}

// InsertFont writes an uploaded font.
func (s *Store) InsertFont(ctx context.Context, f domain.FontFile) error {
	return translate(s.q.InsertUploadedFont(ctx, contentdb.InsertUploadedFontParams{
		ID: f.ID, Name: f.Name, OriginalName: f.OriginalName, SystemName: f.SystemName,
		Family: f.Family, Style: f.Style, Direction: f.Direction, Weight: i32(f.Weight),
		FileKey: f.FileKey, FileUrl: f.FileURL, FileSizeBytes: f.FileSize, FileFormat: f.Format,
		IsPremium: f.IsPremium, CreatedAt: f.CreatedAt,
	}), nil)
}

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
	e := bus.Envelope{EventID: env.EventID, EventType: env.EventType, EventTime: env.EventTime,
		TenantID: env.TenantID, Data: env.Data, UserID: env.UserID, TraceID: env.TraceID,
		CorrelationID: env.CorrelationID}
	if env.Producer != nil {
		e.Producer = string(*env.Producer)
	}
	return bus.PublishEventsInTx(ctx, tx, e)
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
	env.Producer = string(events.ProducerContentService)
	return bus.PublishEventsInTx(ctx, tx, env)
}
