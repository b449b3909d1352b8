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

// Media implements domain.MediaStore on the store's database, with the outbox of pkg/bus in
// the same transactions.
type Media struct{ s *Store }

var _ domain.MediaStore = (*Media)(nil)

// NewMedia returns the media pipeline's store on s.
func NewMedia(s *Store) *Media { return &Media{s: s} }

// InMediaTx runs fn in one transaction.
func (m *Media) InMediaTx(ctx context.Context, fn func(domain.MediaStore) error) error {
	return m.s.InTx(ctx, func(tx domain.Store) error {
		st, ok := tx.(*Store)
		if !ok {
			return errors.New("store: unexpected transaction store")
		}
		return fn(&Media{s: st})
	})
}

// HandleOnce runs fn in a transaction that records (consumer, jobID) in the inbox.
func (m *Media) HandleOnce(ctx context.Context, consumer string, jobID uuid.UUID, fn func(domain.MediaStore) error) (bool, error) {
	return bus.HandleOnce(ctx, m.s.pool, consumer, jobID, func(ctx context.Context, tx pgx.Tx) error {
		return fn(&Media{s: &Store{pool: m.s.pool, db: tx, q: contentdb.New(tx), inTx: true}})
	})
}

func (m *Media) tx() (pgx.Tx, error) {
	tx, ok := m.s.db.(pgx.Tx)
	if !ok {
		return nil, errors.New("store: the outbox is written in a transaction (InMediaTx)")
	}
	return tx, nil
}

// SetProjectAepFile records the project's AEP file and returns the key it replaced.
func (m *Media) SetProjectAepFile(ctx context.Context, projectID uuid.UUID, f domain.AepFile, at time.Time) (string, error) {
	prev, err := m.s.q.SetProjectAepFile(ctx, contentdb.SetProjectAepFileParams{
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
func (m *Media) InsertAepUpload(ctx context.Context, u domain.AepUpload) error {
	return m.s.q.InsertAepUpload(ctx, contentdb.InsertAepUploadParams{
		ID: u.ID, ProjectID: u.ProjectID, UploadID: u.UploadID, Bucket: u.Bucket, Key: u.Key,
		Filename: u.Filename, TotalSizeBytes: u.TotalSize, ChunkSizeBytes: u.ChunkSize,
		PartCount: i32(u.PartCount), CreatedAt: u.CreatedAt,
	})
}

// ErrUnknownUpload answers a completion naming no pending upload of the project.
var ErrUnknownUpload = invalid("body.upload_id", "is not an open upload of this project (unknown, completed or aborted)")

// GetAepUpload finds a pending upload of a project.
func (m *Media) GetAepUpload(ctx context.Context, projectID uuid.UUID, uploadID string) (domain.AepUpload, error) {
	r, err := m.s.q.GetAepUpload(ctx, contentdb.GetAepUploadParams{UploadID: uploadID, ProjectID: projectID})
	if err != nil {
		return domain.AepUpload{}, translate(err, ErrUnknownUpload)
	}
	return aepUploadFrom(r), nil
}

// DeleteAepUpload forgets a completed or aborted upload.
func (m *Media) DeleteAepUpload(ctx context.Context, id uuid.UUID) error {
	return m.s.q.DeleteAepUpload(ctx, id)
}

// ListStaleAepUploads lists uploads started before the given time.
func (m *Media) ListStaleAepUploads(ctx context.Context, before time.Time, limit int) ([]domain.AepUpload, error) {
	rows, err := m.s.q.ListStaleAepUploads(ctx, contentdb.ListStaleAepUploadsParams{CreatedAt: before, Limit: i32(limit)})
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
func (m *Media) InsertFont(ctx context.Context, f domain.FontFile) error {
	return translate(m.s.q.InsertUploadedFont(ctx, contentdb.InsertUploadedFontParams{
		ID: f.ID, Name: f.Name, OriginalName: f.OriginalName, SystemName: f.SystemName,
		Family: f.Family, Style: f.Style, Direction: f.Direction, Weight: i32(f.Weight),
		FileKey: f.FileKey, FileUrl: f.FileURL, FileSizeBytes: f.FileSize, FileFormat: f.Format,
		IsPremium: f.IsPremium, CreatedAt: f.CreatedAt,
	}), nil)
}

// ColorKeysOf lists the colour elements of a scene or the shared colours of a project.
func (m *Media) ColorKeysOf(ctx context.Context, target domain.PreviewTarget, id uuid.UUID) ([]domain.ColorKey, error) {
	var out []domain.ColorKey
	if target == domain.TargetScene {
		rows, err := m.s.q.ColorKeysOfScene(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, domain.ColorKey{ElementKey: r.ElementKey, CurrentColor: r.DefaultColor})
		}
		return out, nil
	}
	rows, err := m.s.q.ColorKeysOfProject(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out = append(out, domain.ColorKey{ElementKey: r.ElementKey, CurrentColor: r.DefaultColor})
	}
	return out, nil
}

// InsertSvgPreview writes a new preview in status Generating.
func (m *Media) InsertSvgPreview(ctx context.Context, p domain.SvgPreview) error {
	keys, err := encode(p.ColorKeys)
	if err != nil {
		return err
	}
	return translate(m.s.q.InsertSvgPreview(ctx, contentdb.InsertSvgPreviewParams{
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
func (m *Media) GetSvgPreview(ctx context.Context, id uuid.UUID) (domain.SvgPreview, error) {
	r, err := m.s.q.GetSvgPreview(ctx, id)
	if err != nil {
		return domain.SvgPreview{}, translate(err, domain.ErrSvgPreviewNotFound)
	}
	return previewFrom(r)
}

// LatestSceneSvgPreview reads the scene's most recently requested preview.
func (m *Media) LatestSceneSvgPreview(ctx context.Context, sceneID uuid.UUID) (domain.SvgPreview, error) {
	r, err := m.s.q.LatestSceneSvgPreview(ctx, &sceneID)
	if err != nil {
		return domain.SvgPreview{}, translate(err, domain.ErrNoScenePreview)
	}
	return previewFrom(r)
}

// FinishSvgPreview moves a Generating preview to Ready (out) or Failed (reason).
func (m *Media) FinishSvgPreview(ctx context.Context, id uuid.UUID, out *domain.PreviewOutput, reason string, at time.Time) (bool, error) {
	var n int64
	var err error
	if out != nil {
		zones, eerr := encode(out.Zones)
		if eerr != nil {
			return false, eerr
		}
		w, h := i32(out.Width), i32(out.Height)
		n, err = m.s.q.FinishSvgPreviewReady(ctx, contentdb.FinishSvgPreviewReadyParams{
			ID: id, SvgUrl: &out.SvgURL, ThumbnailUrl: &out.ThumbnailURL, Width: &w, Height: &h,
			GeneratedByAi: &out.GeneratedByAI, QualityScore: &out.QualityScore, ColorZones: zones, FinishedAt: &at,
		})
	} else {
		n, err = m.s.q.FinishSvgPreviewFailed(ctx, contentdb.FinishSvgPreviewFailedParams{ID: id, Error: &reason, FinishedAt: &at})
	}
	return n == 1, err
}

// ListStuckSvgPreviews lists previews still Generating that were requested before the given time.
func (m *Media) ListStuckSvgPreviews(ctx context.Context, before time.Time, limit int) ([]domain.SvgPreview, error) {
	rows, err := m.s.q.ListStuckSvgPreviews(ctx, contentdb.ListStuckSvgPreviewsParams{CreatedAt: before, Limit: i32(limit)})
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

// PublishEvent writes env to the outbox.
func (m *Media) PublishEvent(ctx context.Context, env events.EventEnvelope) error {
	tx, err := m.tx()
	if err != nil {
		return err
	}
	return bus.PublishEventsInTx(ctx, tx, env)
}

// EnqueuePreviewJob writes the generation command of a preview to the outbox.
func (m *Media) EnqueuePreviewJob(ctx context.Context, tenantID, previewID uuid.UUID) error {
	tx, err := m.tx()
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
