package domain

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// SceneElements are the elements of one scene.
type SceneElements struct {
	Contents     []ContentElement
	Colors       []ColorElement
	ColorPresets []ColorPreset
	Characters   []Character
	Repeaters    []Repeater
}

// ContentElement is a text or media element of a scene.
type ContentElement struct {
	ID                   uuid.UUID
	SceneID              uuid.UUID
	ProjectID            uuid.UUID
	RepeaterItemID       *uuid.UUID
	Key                  string
	Title                string
	Hint                 string
	Type                 string
	DefaultValue         string
	FontFace             string
	Justify              string
	DirectionLayerKey    string
	AiInputType          string
	OpacityControllerKey string
	// LocalizedTitle is the JSON object of titles by language code, kept as stored: the full
	// project read passes it through without decoding a thousand small objects.
	LocalizedTitle      json.RawMessage
	FontID              *uuid.UUID
	FontSize            int
	PositionInContainer int
	IsTextBox           bool
	MaxSize             *int
	DirectionLayerValue int
	VideoSupport        bool
	// MappedList is the JSON array of free-form objects, kept as stored.
	MappedList   json.RawMessage
	IsHidden     bool
	VirtualCount int
	Sort         int
}

// ContentFields are the writable fields of a content element; nil means absent (a null in a
// PATCH is absent too: nullable links are not cleared through PATCH in v1).
type ContentFields struct {
	RepeaterItemID       *uuid.UUID
	Key                  *string
	Title                *string
	Hint                 *string
	Type                 *string
	DefaultValue         *string
	FontFace             *string
	Justify              *string
	DirectionLayerKey    *string
	AiInputType          *string
	OpacityControllerKey *string
	LocalizedTitle       *map[string]string
	FontID               *uuid.UUID
	FontSize             *int
	PositionInContainer  *int
	IsTextBox            *bool
	MaxSize              *int
	DirectionLayerValue  *int
	VideoSupport         *bool
	MappedList           *[]map[string]any
	IsHidden             *bool
	VirtualCount         *int
	Sort                 *int
}

// ErrContentKeyTaken is the conflict of a content key already used in the scene.
var ErrContentKeyTaken = errs.E(errs.Conflict, "the key is already used by a content element of the scene")

// NewContentElement builds a content element of scene; the key is needed.
func NewContentElement(id uuid.UUID, scene Scene, f ContentFields) (ContentElement, error) {
	if f.Key == nil {
		return ContentElement{}, errs.InvalidFields(errs.Field("body.key", "is required"))
	}
	e := ContentElement{ID: id, SceneID: scene.ID, ProjectID: scene.ProjectID,
		LocalizedTitle: json.RawMessage(`{}`), MappedList: json.RawMessage(`[]`)}
	if err := e.Apply(f); err != nil {
		return ContentElement{}, err
	}
	return e, nil
}

// Apply changes the fields f carries and checks the result.
func (e *ContentElement) Apply(f ContentFields) error {
	if f.RepeaterItemID != nil {
		id := *f.RepeaterItemID
		e.RepeaterItemID = &id
	}
	if f.FontID != nil {
		id := *f.FontID
		e.FontID = &id
	}
	if f.MaxSize != nil {
		n := *f.MaxSize
		e.MaxSize = &n
	}
	set(&e.Key, f.Key)
	set(&e.Title, f.Title)
	set(&e.Hint, f.Hint)
	set(&e.Type, f.Type)
	set(&e.DefaultValue, f.DefaultValue)
	set(&e.FontFace, f.FontFace)
	set(&e.Justify, f.Justify)
	set(&e.DirectionLayerKey, f.DirectionLayerKey)
	set(&e.AiInputType, f.AiInputType)
	set(&e.OpacityControllerKey, f.OpacityControllerKey)
	if f.LocalizedTitle != nil {
		raw, err := json.Marshal(*f.LocalizedTitle)
		if err != nil {
			return errs.InvalidFields(errs.Field("body.localized_title", "is not an object of strings"))
		}
		e.LocalizedTitle = raw
	}
	set(&e.FontSize, f.FontSize)
	set(&e.PositionInContainer, f.PositionInContainer)
	set(&e.IsTextBox, f.IsTextBox)
	set(&e.DirectionLayerValue, f.DirectionLayerValue)
	set(&e.VideoSupport, f.VideoSupport)
	if f.MappedList != nil {
		raw, err := json.Marshal(*f.MappedList)
		if err != nil {
			return errs.InvalidFields(errs.Field("body.mapped_list", "is not an array of objects"))
		}
		e.MappedList = raw
	}
	set(&e.IsHidden, f.IsHidden)
	set(&e.VirtualCount, f.VirtualCount)
	set(&e.Sort, f.Sort)
	if len(e.LocalizedTitle) == 0 || string(e.LocalizedTitle) == "null" {
		e.LocalizedTitle = json.RawMessage(`{}`)
	}
	if len(e.MappedList) == 0 || string(e.MappedList) == "null" {
		e.MappedList = json.RawMessage(`[]`)
	}
	if strings.TrimSpace(e.Key) == "" {
		return errs.InvalidFields(errs.Field("body.key", "must not be empty"))
	}
	return nil
}

// AttrValues are the colour attributes a colour element may drive.
var AttrValues = []string{"fill", "stroke", "tracking", "dropshadow"}

// DefaultAttrValue is the attribute of a colour element created without one.
const DefaultAttrValue = "fill"

// ColorElement is a colour element of a scene.
type ColorElement struct {
	ID           uuid.UUID
	SceneID      uuid.UUID
	ProjectID    uuid.UUID
	ElementKey   string
	Title        string
	Icon         string
	DefaultColor string
	AttrValue    string
	Sort         int
}

// ColorFields are the writable fields of a colour element.
type ColorFields struct {
	ElementKey   *string
	Title        *string
	Icon         *string
	DefaultColor *string
	AttrValue    *string
	Sort         *int
}

// ErrColorKeyTaken is the conflict of an element_key already used by a colour of the scene.
var ErrColorKeyTaken = errs.E(errs.Conflict, "the element_key is already used by a colour element of the scene")

// NewColorElement builds a colour element of scene; element_key is needed.
func NewColorElement(id uuid.UUID, scene Scene, f ColorFields) (ColorElement, error) {
	if f.ElementKey == nil {
		return ColorElement{}, errs.InvalidFields(errs.Field("body.element_key", "is required"))
	}
	c := ColorElement{ID: id, SceneID: scene.ID, ProjectID: scene.ProjectID, AttrValue: DefaultAttrValue}
	if err := c.Apply(f); err != nil {
		return ColorElement{}, err
	}
	return c, nil
}

// Apply changes the fields f carries and checks the result.
func (c *ColorElement) Apply(f ColorFields) error {
	set(&c.ElementKey, f.ElementKey)
	set(&c.Title, f.Title)
	set(&c.Icon, f.Icon)
	set(&c.DefaultColor, f.DefaultColor)
	set(&c.AttrValue, f.AttrValue)
	set(&c.Sort, f.Sort)
	var bad []errs.FieldError
	if strings.TrimSpace(c.ElementKey) == "" {
		bad = append(bad, errs.Field("body.element_key", "must not be empty"))
	}
	if !validAttr(c.AttrValue) {
		bad = append(bad, errs.Field("body.attr_value", "must be one of "+strings.Join(AttrValues, ", ")))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

func validAttr(v string) bool {
	for _, a := range AttrValues {
		if a == v {
			return true
		}
	}
	return false
}

// ColorPreset is a named set of colour values of a scene.
type ColorPreset struct {
	ID      uuid.UUID
	SceneID uuid.UUID
	Name    string
	Sort    int
	Items   []ColorPresetItem
}

// ColorPresetItem is one colour of a preset.
type ColorPresetItem struct {
	ElementKey string `json:"element_key"`
	Value      string `json:"value"`
	Sort       int    `json:"sort"`
}

// Character is a character of a scene with its controllers.
type Character struct {
	ID          uuid.UUID
	SceneID     uuid.UUID
	Key         string
	Name        string
	Icon        string
	Controllers []SceneCharacterController
}

// SceneCharacterController is one controller of a scene character.
type SceneCharacterController struct {
	ID           uuid.UUID
	CharacterID  uuid.UUID
	Name         string
	Key          string
	DefaultValue string
	Options      []ControllerOption
}

// ControllerOption is one choice of a character controller.
type ControllerOption struct {
	Name  string `json:"name"`
	Icon  string `json:"icon"`
	Value string `json:"value"`
}

// Repeater is a repeater item of a scene.
type Repeater struct {
	ID                 uuid.UUID
	SceneID            uuid.UUID
	Title              string
	RepeatBoxKey       string
	RepeatItemKey      string
	RepeatSortStrategy string
	MaxRepeatCount     int
	Sort               int
}

// ErrContentNotFound answers an absent content element.
var ErrContentNotFound = errs.E(errs.NotFound, "content element not found")

// ErrColorNotFound answers an absent colour element.
var ErrColorNotFound = errs.E(errs.NotFound, "colour element not found")

// ElementStore keeps the elements of scenes.
type ElementStore interface {
	SceneElements(ctx context.Context, sceneID uuid.UUID) (SceneElements, error)
	InsertContent(ctx context.Context, e ContentElement) error
	GetContentForUpdate(ctx context.Context, id uuid.UUID) (ContentElement, error)
	UpdateContent(ctx context.Context, e ContentElement) error
	DeleteContent(ctx context.Context, id uuid.UUID) error
	InsertColor(ctx context.Context, c ColorElement) error
	GetColorForUpdate(ctx context.Context, id uuid.UUID) (ColorElement, error)
	UpdateColor(ctx context.Context, c ColorElement) error
	DeleteColor(ctx context.Context, id uuid.UUID) error
}
