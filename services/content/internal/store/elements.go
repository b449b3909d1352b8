package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// SceneElements reads the elements of one scene (six queries).
func (s *Store) SceneElements(ctx context.Context, sceneID uuid.UUID) (domain.SceneElements, error) {
	var el domain.SceneElements
	contentRows, err := s.q.ListContentsByScene(ctx, sceneID)
	if err != nil {
		return el, err
	}
	if el.Contents, err = contentsFrom(contentRows); err != nil {
		return el, err
	}
	colorRows, err := s.q.ListColorsByScene(ctx, sceneID)
	if err != nil {
		return el, err
	}
	el.Colors = colorsFrom(colorRows)
	presetRows, err := s.q.ListColorPresetsByScene(ctx, sceneID)
	if err != nil {
		return el, err
	}
	if el.ColorPresets, err = colorPresetsFrom(presetRows); err != nil {
		return el, err
	}
	characterRows, err := s.q.ListCharactersByScene(ctx, sceneID)
	if err != nil {
		return el, err
	}
	controllerRows, err := s.q.ListSceneCharacterControllersByScene(ctx, sceneID)
	if err != nil {
		return el, err
	}
	controllers, err := sceneControllersFrom(controllerRows)
	if err != nil {
		return el, err
	}
	el.Characters = domain.AttachControllers(charactersFrom(characterRows), controllers)
	repeaterRows, err := s.q.ListRepeatersByScene(ctx, sceneID)
	if err != nil {
		return el, err
	}
	el.Repeaters = repeatersFrom(repeaterRows)
	return el, nil
}

func contentFrom(r contentdb.SceneContent) (domain.ContentElement, error) {
	e := domain.ContentElement{ID: r.ID, SceneID: r.SceneID, ProjectID: r.ProjectID,
		RepeaterItemID: r.RepeaterItemID, Key: r.Key, Title: r.Title, Hint: r.Hint, Type: r.Type,
		DefaultValue: r.DefaultValue, FontFace: r.FontFace, Justify: r.Justify,
		DirectionLayerKey: r.DirectionLayerKey, AiInputType: r.AiInputType,
		OpacityControllerKey: r.OpacityControllerKey, LocalizedTitle: r.LocalizedTitle,
		FontID: r.FontID, FontSize: int(r.FontSize), PositionInContainer: int(r.PositionInContainer),
		IsTextBox: r.IsTextBox, MaxSize: intp(r.MaxSize), DirectionLayerValue: int(r.DirectionLayerValue),
		VideoSupport: r.VideoSupport, MappedList: r.MappedList, IsHidden: r.IsHidden,
		VirtualCount: int(r.VirtualCount), Sort: int(r.Sort)}
	return e, nil
}

func contentsFrom(rows []contentdb.SceneContent) ([]domain.ContentElement, error) {
	out := make([]domain.ContentElement, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = contentFrom(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func contentParams(e domain.ContentElement) (contentdb.InsertContentParams, error) {
	title, list := e.LocalizedTitle, e.MappedList
	return contentdb.InsertContentParams{
		ID: e.ID, SceneID: e.SceneID, ProjectID: e.ProjectID, RepeaterItemID: e.RepeaterItemID,
		Key: e.Key, Title: e.Title, Hint: e.Hint, Type: e.Type, DefaultValue: e.DefaultValue,
		FontFace: e.FontFace, Justify: e.Justify, DirectionLayerKey: e.DirectionLayerKey,
		AiInputType: e.AiInputType, OpacityControllerKey: e.OpacityControllerKey,
		LocalizedTitle: title, FontID: e.FontID, FontSize: i32(e.FontSize),
		PositionInContainer: i32(e.PositionInContainer), IsTextBox: e.IsTextBox,
		MaxSize: i32p(e.MaxSize), DirectionLayerValue: i32(e.DirectionLayerValue),
		VideoSupport: e.VideoSupport, MappedList: list, IsHidden: e.IsHidden,
		VirtualCount: i32(e.VirtualCount), Sort: i32(e.Sort),
	}, nil
}

// InsertContent writes a new content element.
func (s *Store) InsertContent(ctx context.Context, e domain.ContentElement) error {
	p, err := contentParams(e)
	if err != nil {
		return err
	}
	return translate(s.q.InsertContent(ctx, p), nil)
}

// GetContentForUpdate reads and locks a content element.
func (s *Store) GetContentForUpdate(ctx context.Context, id uuid.UUID) (domain.ContentElement, error) {
	r, err := s.q.GetContentForUpdate(ctx, id)
	if err != nil {
		return domain.ContentElement{}, translate(err, domain.ErrContentNotFound)
	}
	return contentFrom(r)
}

// UpdateContent writes every writable field of a content element.
func (s *Store) UpdateContent(ctx context.Context, e domain.ContentElement) error {
	p, err := contentParams(e)
	if err != nil {
		return err
	}
	return translate(s.q.UpdateContent(ctx, contentdb.UpdateContentParams{
		ID: p.ID, RepeaterItemID: p.RepeaterItemID, Key: p.Key, Title: p.Title, Hint: p.Hint,
		Type: p.Type, DefaultValue: p.DefaultValue, FontFace: p.FontFace, Justify: p.Justify,
		DirectionLayerKey: p.DirectionLayerKey, AiInputType: p.AiInputType,
		OpacityControllerKey: p.OpacityControllerKey, LocalizedTitle: p.LocalizedTitle,
		FontID: p.FontID, FontSize: p.FontSize, PositionInContainer: p.PositionInContainer,
		IsTextBox: p.IsTextBox, MaxSize: p.MaxSize, DirectionLayerValue: p.DirectionLayerValue,
		VideoSupport: p.VideoSupport, MappedList: p.MappedList, IsHidden: p.IsHidden,
		VirtualCount: p.VirtualCount, Sort: p.Sort,
	}), nil)
}

// DeleteContent removes a content element.
func (s *Store) DeleteContent(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteContent(ctx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.ErrContentNotFound
	}
	return nil
}

func colorsFrom(rows []contentdb.SceneColor) []domain.ColorElement {
	out := make([]domain.ColorElement, len(rows))
	for i, r := range rows {
		out[i] = domain.ColorElement{ID: r.ID, SceneID: r.SceneID, ProjectID: r.ProjectID,
			ElementKey: r.ElementKey, Title: r.Title, Icon: r.Icon, DefaultColor: r.DefaultColor,
			AttrValue: r.AttrValue, Sort: int(r.Sort)}
	}
	return out
}

// InsertColor writes a new colour element.
func (s *Store) InsertColor(ctx context.Context, c domain.ColorElement) error {
	return translate(s.q.InsertColor(ctx, contentdb.InsertColorParams{
		ID: c.ID, SceneID: c.SceneID, ProjectID: c.ProjectID, ElementKey: c.ElementKey, Title: c.Title,
		Icon: c.Icon, DefaultColor: c.DefaultColor, AttrValue: c.AttrValue, Sort: i32(c.Sort),
	}), nil)
}

// GetColorForUpdate reads and locks a colour element.
func (s *Store) GetColorForUpdate(ctx context.Context, id uuid.UUID) (domain.ColorElement, error) {
	r, err := s.q.GetColorForUpdate(ctx, id)
	if err != nil {
		return domain.ColorElement{}, translate(err, domain.ErrColorNotFound)
	}
	return colorsFrom([]contentdb.SceneColor{r})[0], nil
}

// UpdateColor writes every writable field of a colour element.
func (s *Store) UpdateColor(ctx context.Context, c domain.ColorElement) error {
	return translate(s.q.UpdateColor(ctx, contentdb.UpdateColorParams{
		ID: c.ID, ElementKey: c.ElementKey, Title: c.Title, Icon: c.Icon, DefaultColor: c.DefaultColor,
		AttrValue: c.AttrValue, Sort: i32(c.Sort),
	}), nil)
}

// DeleteColor removes a colour element.
func (s *Store) DeleteColor(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteColor(ctx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.ErrColorNotFound
	}
	return nil
}

func colorPresetsFrom(rows []contentdb.SceneColorPreset) ([]domain.ColorPreset, error) {
	out := make([]domain.ColorPreset, len(rows))
	for i, r := range rows {
		p := domain.ColorPreset{ID: r.ID, SceneID: r.SceneID, Name: r.Name, Sort: int(r.Sort)}
		var err error
		if p.Items, err = decodeColorPresetItems(r.Items); err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func charactersFrom(rows []contentdb.SceneCharacter) []domain.Character {
	out := make([]domain.Character, len(rows))
	for i, r := range rows {
		out[i] = domain.Character{ID: r.ID, SceneID: r.SceneID, Key: r.Key, Name: r.Name, Icon: r.Icon}
	}
	return out
}

func sceneControllersFrom(rows []contentdb.SceneCharacterController) ([]domain.SceneCharacterController, error) {
	out := make([]domain.SceneCharacterController, len(rows))
	for i, r := range rows {
		c := domain.SceneCharacterController{ID: r.ID, CharacterID: r.CharacterID, Name: r.Name, Key: r.Key,
			DefaultValue: r.DefaultValue}
		var err error
		if c.Options, err = decodeControllerOptions(r.Options); err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func repeatersFrom(rows []contentdb.RepeaterItem) []domain.Repeater {
	out := make([]domain.Repeater, len(rows))
	for i, r := range rows {
		out[i] = domain.Repeater{ID: r.ID, SceneID: r.SceneID, Title: r.Title, RepeatBoxKey: r.RepeatBoxKey,
			RepeatItemKey: r.RepeatItemKey, RepeatSortStrategy: r.RepeatSortStrategy,
			MaxRepeatCount: int(r.MaxRepeatCount), Sort: int(r.Sort)}
	}
	return out
}
