package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// Media is the media pipeline behind the upload and SVG-preview operations; nil answers them
// with 501.
type Media = *app.Media

// multipartOverhead is what a multipart body may carry beyond its file: boundaries, part
// headers and the small fields.
const multipartOverhead = 1 << 20

// MediaBodyLimits are the body limits of the upload operations for
// httpx.Options.OperationBodyLimits, keyed by their operationIds in the spec: the file bound plus
// the multipart overhead. A body that declares more is refused at once; the handlers stop a body
// whose file part passes the bound while streaming (413 too, the AEP one pointing to the
// multipart upload).
func MediaBodyLimits(m Media) map[string]int64 {
	c := m.Config()
	return map[string]int64{
		"uploadProjectAep":   c.AepMaxSingleUpload + multipartOverhead,
		"createFont":         c.FontMaxBytes + multipartOverhead,
		"generateSvgPreview": c.ImageMaxBytes + multipartOverhead,
	}
}

// mediaCaller is the caller of a media operation, once the pipeline is known to be configured
// (a server built without object storage answers 501 for them).
func (s *Server) mediaCaller(ctx context.Context, what string) (domain.Actor, error) {
	if s.media == nil {
		return domain.Actor{}, notImplemented(what)
	}
	return actorOf(ctx)
}

func notImplemented(what string) error {
	return errs.E(errs.NotImplemented, what+" is not available: the media pipeline is not configured")
}

// bodyError turns a failure to read a multipart body into the caller's error: a body above
// the operation's limit is 413, a malformed or truncated one 400.
func bodyError(err error) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	var maxed *http.MaxBytesError
	if errors.As(err, &maxed) {
		return errs.Wrap(errs.TooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxed.Limit), err)
	}
	return errs.Wrap(errs.Invalid, "the multipart/form-data body could not be read", err)
}

// partReader reads a multipart part, turning read failures into the caller's errors (so the
// object storage upload stops with a 400 or 413, not a 500).
type partReader struct{ p *multipart.Part }

func (r partReader) Read(b []byte) (int, error) {
	n, err := r.p.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, bodyError(err)
	}
	return n, err
}

// formValue reads a small text field (at most 4 KiB).
func formValue(p *multipart.Part) (string, error) {
	b, err := io.ReadAll(io.LimitReader(partReader{p}, 4<<10+1))
	if err != nil {
		return "", err
	}
	if len(b) > 4<<10 {
		return "", errs.InvalidFields(errs.Field("body."+p.FormName(), "is longer than 4 KiB"))
	}
	return strings.TrimSpace(string(b)), nil
}

// UploadProjectAep is PUT /projects/{project_id}/aep: the file part is streamed to object
// storage as it arrives (never parsed into memory or a temporary file).
func (s *Server) UploadProjectAep(ctx context.Context, req content.UploadProjectAepRequestObject) (content.UploadProjectAepResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "the AEP upload")
	if err != nil {
		return nil, err
	}
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errs.InvalidFields(errs.Field("body.file", "is required"))
		}
		if err != nil {
			return nil, bodyError(err)
		}
		if part.FormName() != "file" {
			continue // NextPart skips what is left of it
		}
		f, err := s.media.UploadAep(ctx, actor, req.ProjectId, part.FileName(), partReader{part})
		if err != nil {
			return nil, err
		}
		return content.UploadProjectAep200JSONResponse{AepFileUrl: f.URL, AepFileMd5: f.MD5, AepFileSizeBytes: f.Size}, nil
	}
}

// StartProjectAepUpload is POST /projects/{project_id}/aep/start-upload.
func (s *Server) StartProjectAepUpload(ctx context.Context, req content.StartProjectAepUploadRequestObject) (content.StartProjectAepUploadResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "the multipart AEP upload")
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errs.InvalidFields(errs.Field("body", "is required"))
	}
	up, err := s.media.StartAepUpload(ctx, actor, req.ProjectId, req.Body.Filename, req.Body.TotalSizeBytes)
	if err != nil {
		return nil, err
	}
	return content.StartProjectAepUpload201JSONResponse{
		UploadId: up.UploadID, Bucket: up.Bucket, Key: up.Key, ChunkSizeBytes: int(up.ChunkSize),
		PartUrls: mapAll(up.Parts, func(p app.PartURL) content.AepPartUrl {
			return content.AepPartUrl{PartNumber: int(p.Number), Url: p.URL}
		}),
	}, nil
}

// CompleteProjectAepUpload is POST /projects/{project_id}/aep/complete-upload.
func (s *Server) CompleteProjectAepUpload(ctx context.Context, req content.CompleteProjectAepUploadRequestObject) (content.CompleteProjectAepUploadResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "the multipart AEP upload")
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errs.InvalidFields(errs.Field("body", "is required"))
	}
	parts := mapAll(req.Body.Parts, func(p content.AepCompletedPart) domain.CompletedPart {
		return domain.CompletedPart{Number: int32(p.PartNumber), ETag: p.Etag} //nolint:gosec // bounded 1..10000 by the spec
	})
	f, err := s.media.CompleteAepUpload(ctx, actor, req.ProjectId, req.Body.UploadId, parts)
	if err != nil {
		return nil, err
	}
	return content.CompleteProjectAepUpload200JSONResponse{AepFileMd5: f.MD5, AepFileSizeBytes: f.Size}, nil
}

// CreateFont is POST /fonts.
func (s *Server) CreateFont(ctx context.Context, req content.CreateFontRequestObject) (content.CreateFontResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "the font upload")
	if err != nil {
		return nil, err
	}
	if err := actor.RequireAdmin(); err != nil {
		return nil, err
	}
	var in app.FontUpload
	var haveFile bool
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		switch name := part.FormName(); name {
		case "file":
			limit := s.media.Config().FontMaxBytes
			data, err := io.ReadAll(io.LimitReader(partReader{part}, limit+1))
			if err != nil {
				return nil, err
			}
			if int64(len(data)) > limit {
				return nil, s.media.FontTooLarge()
			}
			in.Data, in.Filename, haveFile = data, part.FileName(), true
		case "name", "family", "direction":
			v, err := formValue(part)
			if err != nil {
				return nil, err
			}
			switch name {
			case "name":
				in.Name = &v
			case "family":
				in.Family = &v
			default:
				in.Direction = &v
			}
		case "is_premium":
			v, err := formValue(part)
			if err != nil {
				return nil, err
			}
			if in.IsPremium, err = strconv.ParseBool(v); err != nil {
				return nil, errs.InvalidFields(errs.Field("body.is_premium", "must be true or false"))
			}
		}
	}
	if !haveFile {
		return nil, errs.InvalidFields(errs.Field("body.file", "is required"))
	}
	f, err := s.media.CreateFont(ctx, actor, in)
	if err != nil {
		return nil, err
	}
	return content.CreateFont201JSONResponse{Id: f.ID, Name: f.Name, OriginalName: f.OriginalName,
		SystemName: f.SystemName, Family: f.Family, Style: f.Style, Direction: f.Direction, FileUrl: f.FileURL,
		SampleImageUrl: f.SampleImageURL, Weight: f.Weight, IsPremium: f.IsPremium, InstalledOnNodes: f.InstalledOnNodes}, nil
}

// GenerateSvgPreview is POST /svg-previews/generate: image, target_type, target_id and one
// color_keys part per key (each a JSON object; a JSON array in one part is accepted too).
func (s *Server) GenerateSvgPreview(ctx context.Context, req content.GenerateSvgPreviewRequestObject) (content.GenerateSvgPreviewResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "SVG preview generation")
	if err != nil {
		return nil, err
	}
	if err := actor.RequireAdmin(); err != nil {
		return nil, err
	}
	var (
		pr                 app.PreviewRequest
		haveImage, haveKey bool
		targetType, target string
		bad                []errs.FieldError
	)
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		switch part.FormName() {
		case "image":
			limit := s.media.Config().ImageMaxBytes
			data, err := io.ReadAll(io.LimitReader(partReader{part}, limit+1))
			if err != nil {
				return nil, err
			}
			if int64(len(data)) > limit {
				return nil, s.media.ImageTooLarge()
			}
			pr.Image, haveImage = data, true
		case "target_type":
			if targetType, err = formValue(part); err != nil {
				return nil, err
			}
		case "target_id":
			if target, err = formValue(part); err != nil {
				return nil, err
			}
		case "color_keys":
			raw, err := io.ReadAll(io.LimitReader(partReader{part}, 1<<20))
			if err != nil {
				return nil, err
			}
			keys, err := decodeColorKeys(raw)
			if err != nil {
				bad = append(bad, errs.Field("body.color_keys", err.Error()))
				continue
			}
			pr.ColorKeys, haveKey = append(pr.ColorKeys, keys...), true
		}
	}
	if !haveImage {
		bad = append(bad, errs.Field("body.image", "is required"))
	}
	switch domain.PreviewTarget(targetType) {
	case domain.TargetProject, domain.TargetScene:
		pr.TargetType = domain.PreviewTarget(targetType)
	case "":
		bad = append(bad, errs.Field("body.target_type", "is required"))
	default:
		bad = append(bad, errs.Field("body.target_type", "must be project or scene"))
	}
	if pr.TargetID, err = uuid.Parse(target); err != nil {
		bad = append(bad, errs.Field("body.target_id", "must be a uuid"))
	}
	if len(bad) > 0 {
		return nil, errs.InvalidFields(bad...)
	}
	if haveKey && pr.ColorKeys == nil {
		pr.ColorKeys = []domain.ColorKey{} // given, but empty: not "every colour element"
	}
	p, err := s.media.RequestPreview(ctx, actor, pr)
	if err != nil {
		return nil, err
	}
	return content.GenerateSvgPreview202JSONResponse{SvgPreviewId: p.ID, Status: content.SvgPreviewAcceptedStatusGenerating}, nil
}

// decodeColorKeys reads one color_keys part: a JSON object, or an array of them.
func decodeColorKeys(raw []byte) ([]domain.ColorKey, error) {
	type key struct {
		ElementKey   *string `json:"element_key"`
		CurrentColor *string `json:"current_color"`
	}
	var keys []key
	trimmed := strings.TrimSpace(string(raw))
	var err error
	if strings.HasPrefix(trimmed, "[") {
		err = json.Unmarshal(raw, &keys)
	} else {
		var k key
		err = json.Unmarshal(raw, &k)
		keys = []key{k}
	}
	if err != nil {
		return nil, errors.New(`each part must be a JSON object {"element_key": ..., "current_color": ...}`)
	}
	out := make([]domain.ColorKey, len(keys))
	for i, k := range keys {
		if k.ElementKey == nil || k.CurrentColor == nil {
			return nil, errors.New("element_key and current_color are required in every key")
		}
		out[i] = domain.ColorKey{ElementKey: *k.ElementKey, CurrentColor: *k.CurrentColor}
	}
	return out, nil
}

func previewOut(p domain.SvgPreview) content.SvgPreview {
	out := content.SvgPreview{Id: p.ID, ProjectId: p.ProjectID, SceneId: p.SceneID, SourceImageUrl: p.SourceImageURL,
		Status: content.SvgPreviewStatus(p.Status), Error: p.Error, CreatedAt: p.CreatedAt.UTC()}
	if o := p.Output; o != nil {
		zones := mapAll(o.Zones, func(z domain.ColorZone) content.SvgColorZone {
			return content.SvgColorZone{ElementKey: z.ElementKey, DetectedColor: z.DetectedColor, Bbox: z.BBox[:]}
		})
		out.SvgUrl, out.ThumbnailUrl = ptr(o.SvgURL), ptr(o.ThumbnailURL)
		out.Width, out.Height = ptr(o.Width), ptr(o.Height)
		out.GeneratedByAi, out.QualityScore, out.ColorZones = ptr(o.GeneratedByAI), ptr(o.QualityScore), &zones
	}
	return out
}

// GetSvgPreview is GET /svg-previews/{svg_preview_id}.
func (s *Server) GetSvgPreview(ctx context.Context, req content.GetSvgPreviewRequestObject) (content.GetSvgPreviewResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "SVG previews")
	if err != nil {
		return nil, err
	}
	p, err := s.media.GetPreview(ctx, actor, req.SvgPreviewId)
	if err != nil {
		return nil, err
	}
	return content.GetSvgPreview200JSONResponse(previewOut(p)), nil
}

// GetSceneSvgPreview is GET /scenes/{scene_id}/svg-preview.
func (s *Server) GetSceneSvgPreview(ctx context.Context, req content.GetSceneSvgPreviewRequestObject) (content.GetSceneSvgPreviewResponseObject, error) {
	actor, err := s.mediaCaller(ctx, "SVG previews")
	if err != nil {
		return nil, err
	}
	p, err := s.media.ScenePreview(ctx, actor, req.SceneId)
	if err != nil {
		return nil, err
	}
	return content.GetSceneSvgPreview200JSONResponse(previewOut(p)), nil
}
