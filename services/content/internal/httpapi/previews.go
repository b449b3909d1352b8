package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// GenerateSvgPreview is POST /svg-previews/generate: image, target_type, target_id and one
// color_keys part per key (each a JSON object; a JSON array in one part is accepted too).
func (s *Server) GenerateSvgPreview(ctx context.Context, req contentserver.GenerateSvgPreviewRequestObject) (contentserver.GenerateSvgPreviewResponseObject, error) {
	actor, err := actorOf(ctx)
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
		switch name := part.FormName(); name {
		case "image":
			data, err := io.ReadAll(io.LimitReader(partReader{part}, domain.MaxPreviewImageBytes+1))
			if err != nil {
				return nil, err
			}
			if len(data) > domain.MaxPreviewImageBytes {
				return nil, domain.ErrImageTooLarge
			}
			pr.Image, haveImage = data, true
		case "target_type":
			if targetType, err = formValue(ctx, part); err != nil {
				return nil, err
			}
		case "target_id":
			if target, err = formValue(ctx, part); err != nil {
				return nil, err
			}
		case "color_keys":
			raw, err := io.ReadAll(io.LimitReader(partReader{part}, 1<<20))
			if err != nil {
				return nil, err
			}
			if err := httpx.CheckJSONText("body.color_keys", raw); err != nil {
				return nil, err
			}
			keys, err := decodeColorKeys(raw)
			if err != nil {
				bad = append(bad, errs.Field("body.color_keys", err.Error()))
				continue
			}
			pr.ColorKeys, haveKey = append(pr.ColorKeys, keys...), true
		default:
			if err := httpx.CheckFormPart(ctx, name); err != nil {
				return nil, err
			}
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
	p, err := s.app.RequestPreview(ctx, actor, pr)
	if err != nil {
		return nil, err
	}
	return contentserver.GenerateSvgPreview202JSONResponse{SvgPreviewId: p.ID, Status: content.SvgPreviewAcceptedStatusGenerating}, nil
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
func (s *Server) GetSvgPreview(ctx context.Context, req contentserver.GetSvgPreviewRequestObject) (contentserver.GetSvgPreviewResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetPreview(ctx, actor, req.SvgPreviewId)
	if err != nil {
		return nil, err
	}
	return contentserver.GetSvgPreview200JSONResponse(previewOut(p)), nil
}

// GetSceneSvgPreview is GET /scenes/{scene_id}/svg-preview.
func (s *Server) GetSceneSvgPreview(ctx context.Context, req contentserver.GetSceneSvgPreviewRequestObject) (contentserver.GetSceneSvgPreviewResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.ScenePreview(ctx, actor, req.SceneId)
	if err != nil {
		return nil, err
	}
	return contentserver.GetSceneSvgPreview200JSONResponse(previewOut(p)), nil
}
