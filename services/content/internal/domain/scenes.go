package domain

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// ErrSceneNotFound answers every read of an absent or invisible scene.
var ErrSceneNotFound = errs.E(errs.NotFound, "scene not found")

// ErrSceneKeyTaken is the conflict of a scene key already used in the project.
var ErrSceneKeyTaken = errs.E(errs.Conflict, "the key is already used by a scene of the project")

// Scene is one scene of a project.
type Scene struct {
	ID                   uuid.UUID
	ProjectID            uuid.UUID
	Key                  string
	Title                string
	SceneType            string
	Image                string
	Demo                 string
	SnapshotURL          string
	LocalizedTitle       map[string]string
	DefaultDurationSec   float64
	MinDurationSec       float64
	MaxDurationSec       float64
	OverlapAtEndSec      float64
	ManualColorSelection bool
	Sort                 int
	CreatedAt            time.Time
}

// SceneFields are the writable fields of a scene: Key, Title, SceneType at creation;
// Title, DefaultDurationSec, Sort and ManualColorSelection in a patch.
type SceneFields struct {
	Key                  *string
	Title                *string
	SceneType            *string
	DefaultDurationSec   *float64
	Sort                 *int
	ManualColorSelection *bool
}

// NewScene builds a scene; sort is the position given, else nextSort (the scene goes last).
func NewScene(id, projectID uuid.UUID, f SceneFields, nextSort int, now time.Time) (Scene, error) {
	if f.Key == nil || strings.TrimSpace(*f.Key) == "" {
		return Scene{}, errs.InvalidFields(errs.Field("body.key", "is required"))
	}
	if f.Title == nil {
		return Scene{}, errs.InvalidFields(errs.Field("body.title", "is required"))
	}
	s := Scene{ID: id, ProjectID: projectID, Key: *f.Key, Sort: nextSort, LocalizedTitle: map[string]string{}, CreatedAt: now}
	set(&s.SceneType, f.SceneType)
	if err := s.Apply(f); err != nil {
		return Scene{}, err
	}
	return s, nil
}

// Apply changes the patchable fields f carries.
func (s *Scene) Apply(f SceneFields) error {
	set(&s.Title, f.Title)
	set(&s.DefaultDurationSec, f.DefaultDurationSec)
	set(&s.Sort, f.Sort)
	set(&s.ManualColorSelection, f.ManualColorSelection)
	if s.DefaultDurationSec < 0 {
		return errs.InvalidFields(errs.Field("body.default_duration_sec", "must not be negative"))
	}
	return nil
}

// CheckReorder verifies that ordered holds exactly the scene ids of the project (current), each
// once.
func CheckReorder(ordered, current []uuid.UUID) error {
	want := make(map[uuid.UUID]bool, len(current))
	for _, id := range current {
		want[id] = false
	}
	var bad []errs.FieldError
	for i, id := range ordered {
		seen, ok := want[id]
		switch {
		case !ok:
			bad = append(bad, errs.Field(fmt.Sprintf("body.ordered_ids[%d]", i), "is not a scene of the project"))
		case seen:
			bad = append(bad, errs.Field(fmt.Sprintf("body.ordered_ids[%d]", i), "appears more than once"))
		default:
			want[id] = true
		}
	}
	missing := 0
	for _, seen := range want {
		if !seen {
			missing++
		}
	}
	if missing > 0 {
		bad = append(bad, errs.Field("body.ordered_ids", fmt.Sprintf("misses %d scene(s) of the project: every scene must be listed once", missing)))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// SceneElements are the elements of one scene.
type SceneElements struct {
	Contents     []ContentElement
	Colors       []ColorElement
	ColorPresets []ColorPreset
	Characters   []Character
	Repeaters    []Repeater
}

// SceneFull is a scene with its elements.
type SceneFull struct {
	Scene
	SceneElements
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

// GroupByScene distributes the project's elements to their scenes, keeping each list's order.
// Lists that come grouped by scene (each scene's elements in one run, as the store reads them)
// are shared, not copied: a scene's list is its run of the project's list.
func GroupByScene(scenes []Scene, contents []ContentElement, colors []ColorElement, presets []ColorPreset,
	characters []Character, controllers []SceneCharacterController, repeaters []Repeater) []SceneFull {
	byContents := runs(contents, func(e ContentElement) uuid.UUID { return e.SceneID })
	byColors := runs(colors, func(e ColorElement) uuid.UUID { return e.SceneID })
	byPresets := runs(presets, func(e ColorPreset) uuid.UUID { return e.SceneID })
	byRepeaters := runs(repeaters, func(e Repeater) uuid.UUID { return e.SceneID })
	byCharacters := runs(AttachControllers(characters, controllers), func(e Character) uuid.UUID { return e.SceneID })
	out := make([]SceneFull, len(scenes))
	for i, s := range scenes {
		out[i] = SceneFull{Scene: s, SceneElements: SceneElements{
			Contents: orEmpty(byContents[s.ID]), Colors: orEmpty(byColors[s.ID]),
			ColorPresets: orEmpty(byPresets[s.ID]), Characters: orEmpty(byCharacters[s.ID]),
			Repeaters: orEmpty(byRepeaters[s.ID])}}
	}
	return out
}

// runs splits items by key. When each key's items are contiguous the lists are subslices of
// items (capacity cut, so an append never writes into the next run); otherwise they are copies.
func runs[T any](items []T, key func(T) uuid.UUID) map[uuid.UUID][]T {
	out := make(map[uuid.UUID][]T)
	start := 0
	for i := 1; i <= len(items); i++ {
		if i < len(items) && key(items[i]) == key(items[start]) {
			continue
		}
		k := key(items[start])
		if prev, seen := out[k]; seen {
			// Not grouped: this key had an earlier run; join them in a copy.
			joined := make([]T, 0, len(prev)+i-start)
			out[k] = append(append(joined, prev...), items[start:i]...)
		} else {
			out[k] = items[start:i:i]
		}
		start = i
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// AttachControllers gives each character its controllers, keeping their order.
func AttachControllers(characters []Character, controllers []SceneCharacterController) []Character {
	at := make(map[uuid.UUID]int, len(characters))
	for i := range characters {
		characters[i].Controllers = []SceneCharacterController{}
		at[characters[i].ID] = i
	}
	for _, c := range controllers {
		if i, ok := at[c.CharacterID]; ok {
			characters[i].Controllers = append(characters[i].Controllers, c)
		}
	}
	return characters
}

// ErrContentNotFound answers an absent content element.
var ErrContentNotFound = errs.E(errs.NotFound, "content element not found")

// ErrColorNotFound answers an absent colour element.
var ErrColorNotFound = errs.E(errs.NotFound, "colour element not found")
