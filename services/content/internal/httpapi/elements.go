package httpapi

import (
	"context"
	"encoding/json"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func contentOut(e domain.ContentElement) content.SceneContentElement {
	// The stored JSON is the element's own (written through Apply): it decodes.
	title := map[string]string{}
	_ = json.Unmarshal(e.LocalizedTitle, &title)
	list := []map[string]any{}
	_ = json.Unmarshal(e.MappedList, &list)
	return content.SceneContentElement{Id: ptr(e.ID), SceneId: ptr(e.SceneID), RepeaterItemId: e.RepeaterItemID,
		Key: ptr(e.Key), Title: ptr(e.Title), Hint: ptr(e.Hint), Type: ptr(e.Type),
		DefaultValue: ptr(e.DefaultValue), FontFace: ptr(e.FontFace), Justify: ptr(e.Justify),
		DirectionLayerKey: ptr(e.DirectionLayerKey), AiInputType: ptr(e.AiInputType),
		OpacityControllerKey: ptr(e.OpacityControllerKey), LocalizedTitle: &title, FontId: e.FontID,
		FontSize: ptr(e.FontSize), PositionInContainer: ptr(e.PositionInContainer),
		IsTextBox: ptr(e.IsTextBox), MaxSize: e.MaxSize, DirectionLayerValue: ptr(e.DirectionLayerValue),
		VideoSupport: ptr(e.VideoSupport), MappedList: &list, IsHidden: ptr(e.IsHidden),
		VirtualCount: ptr(e.VirtualCount), Sort: ptr(e.Sort)}
}

func contentFields(b content.SceneContentElement) domain.ContentFields {
	return domain.ContentFields{RepeaterItemID: b.RepeaterItemId, Key: b.Key, Title: b.Title, Hint: b.Hint,
		Type: b.Type, DefaultValue: b.DefaultValue, FontFace: b.FontFace, Justify: b.Justify,
		DirectionLayerKey: b.DirectionLayerKey, AiInputType: b.AiInputType,
		OpacityControllerKey: b.OpacityControllerKey, LocalizedTitle: b.LocalizedTitle, FontID: b.FontId,
		FontSize: b.FontSize, PositionInContainer: b.PositionInContainer, IsTextBox: b.IsTextBox,
		MaxSize: b.MaxSize, DirectionLayerValue: b.DirectionLayerValue, VideoSupport: b.VideoSupport,
		MappedList: b.MappedList, IsHidden: b.IsHidden, VirtualCount: b.VirtualCount, Sort: b.Sort}
}

func colorOut(c domain.ColorElement) content.SceneColorElement {
	attr := content.SceneColorElementAttrValue(c.AttrValue)
	return content.SceneColorElement{Id: ptr(c.ID), SceneId: ptr(c.SceneID), ElementKey: ptr(c.ElementKey),
		Title: ptr(c.Title), Icon: ptr(c.Icon), DefaultColor: ptr(c.DefaultColor), AttrValue: &attr, Sort: ptr(c.Sort)}
}

func colorFields(b content.SceneColorElement) domain.ColorFields {
	f := domain.ColorFields{ElementKey: b.ElementKey, Title: b.Title, Icon: b.Icon, DefaultColor: b.DefaultColor, Sort: b.Sort}
	if b.AttrValue != nil {
		f.AttrValue = ptr(string(*b.AttrValue))
	}
	return f
}

func colorPresetOut(p domain.ColorPreset) content.SceneColorPreset {
	return content.SceneColorPreset{Id: p.ID, Name: p.Name, Sort: p.Sort,
		Items: mapAll(p.Items, func(i domain.ColorPresetItem) content.SceneColorPresetItem {
			return content.SceneColorPresetItem{ElementKey: i.ElementKey, Value: i.Value, Sort: i.Sort}
		})}
}

func characterOut(c domain.Character) content.SceneCharacter {
	return content.SceneCharacter{Id: c.ID, Key: c.Key, Name: c.Name, Icon: c.Icon,
		Controllers: mapAll(c.Controllers, func(k domain.SceneCharacterController) content.SceneCharacterController {
			return content.SceneCharacterController{Id: k.ID, Name: k.Name, Key: k.Key, DefaultValue: k.DefaultValue,
				Options: mapAll(k.Options, func(o domain.ControllerOption) content.SceneCharacterControllerOption {
					return content.SceneCharacterControllerOption{Name: o.Name, Icon: o.Icon, Value: o.Value}
				})}
		})}
}

func repeaterOut(r domain.Repeater) content.RepeaterItem {
	return content.RepeaterItem{Id: r.ID, Title: r.Title, RepeatBoxKey: r.RepeatBoxKey, RepeatItemKey: r.RepeatItemKey,
		RepeatSortStrategy: r.RepeatSortStrategy, MaxRepeatCount: r.MaxRepeatCount, Sort: r.Sort}
}

// GetSceneElements is GET /scenes/{scene_id}/elements.
func (s *Server) GetSceneElements(ctx context.Context, r contentserver.GetSceneElementsRequestObject) (contentserver.GetSceneElementsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	el, err := s.app.GetSceneElements(ctx, a, r.SceneId)
	if err != nil {
		return nil, err
	}
	return contentserver.GetSceneElements200JSONResponse{Contents: mapAll(el.Contents, contentOut),
		Colors: mapAll(el.Colors, colorOut), Characters: mapAll(el.Characters, characterOut),
		Repeaters: mapAll(el.Repeaters, repeaterOut)}, nil
}

// CreateSceneContent is POST /scenes/{scene_id}/contents.
func (s *Server) CreateSceneContent(ctx context.Context, r contentserver.CreateSceneContentRequestObject) (contentserver.CreateSceneContentResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.app.CreateContent(ctx, a, r.SceneId, contentFields(*r.Body))
	if err != nil {
		return nil, err
	}
	return contentserver.CreateSceneContent201JSONResponse(contentOut(e)), nil
}

// UpdateSceneContent is PATCH /scene-contents/{element_id}.
func (s *Server) UpdateSceneContent(ctx context.Context, r contentserver.UpdateSceneContentRequestObject) (contentserver.UpdateSceneContentResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.app.UpdateContent(ctx, a, r.ElementId, contentFields(*r.Body))
	if err != nil {
		return nil, err
	}
	return contentserver.UpdateSceneContent200JSONResponse(contentOut(e)), nil
}

// DeleteSceneContent is DELETE /scene-contents/{element_id}.
func (s *Server) DeleteSceneContent(ctx context.Context, r contentserver.DeleteSceneContentRequestObject) (contentserver.DeleteSceneContentResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteContent(ctx, a, r.ElementId); err != nil {
		return nil, err
	}
	return contentserver.DeleteSceneContent204Response{}, nil
}

// CreateSceneColor is POST /scenes/{scene_id}/colors.
func (s *Server) CreateSceneColor(ctx context.Context, r contentserver.CreateSceneColorRequestObject) (contentserver.CreateSceneColorResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.app.CreateColor(ctx, a, r.SceneId, colorFields(*r.Body))
	if err != nil {
		return nil, err
	}
	return contentserver.CreateSceneColor201JSONResponse(colorOut(c)), nil
}

// UpdateSceneColor is PATCH /scene-colors/{element_id}.
func (s *Server) UpdateSceneColor(ctx context.Context, r contentserver.UpdateSceneColorRequestObject) (contentserver.UpdateSceneColorResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.app.UpdateColor(ctx, a, r.ElementId, colorFields(*r.Body))
	if err != nil {
		return nil, err
	}
	return contentserver.UpdateSceneColor200JSONResponse(colorOut(c)), nil
}

// DeleteSceneColor is DELETE /scene-colors/{element_id}.
func (s *Server) DeleteSceneColor(ctx context.Context, r contentserver.DeleteSceneColorRequestObject) (contentserver.DeleteSceneColorResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteColor(ctx, a, r.ElementId); err != nil {
		return nil, err
	}
	return contentserver.DeleteSceneColor204Response{}, nil
}
