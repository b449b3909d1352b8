package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/httpx/jsonw"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// projectFullJSON is the 200 response of GET /projects/{id}/full, the largest and hottest
// response of the API (a project of 40 scenes x 25 elements is about 600 KB). It is streamed
// straight from the domain values through a small pooled buffer, field by field as the
// ProjectFull schema declares them, instead of being copied into the generated types' pointer
// fields and encoded by reflection. The stored JSON of elements (localized titles, mapped
// lists) is passed through as is. TestProjectFullJSONMatchesTheGeneratedTypes holds the output
// equal to what the generated types would encode.
type projectFullJSON struct{ full domain.ProjectFull }

// VisitGetProjectFullResponse streams the aggregate.
func (r projectFullJSON) VisitGetProjectFullResponse(w http.ResponseWriter) error {
	return jsonw.Stream(w, http.StatusOK, func(out *jsonw.Writer) { writeProjectFull(out, r.full) })
}

func writeProjectFull(w *jsonw.Writer, f domain.ProjectFull) {
	w.Open('{')
	w.Key("project", true)
	p := f.Project
	w.Open('{')
	w.ID("id", p.ID, true)
	w.Str("name", p.Name, false)
	w.Str("aspect", p.Aspect, false)
	w.Str("resolution", p.Resolution, false)
	w.Str("choose_mode", p.ChooseMode, false)
	w.Str("image", p.Image, false)
	w.Int("original_width", p.OriginalWidth, false)
	w.Int("original_height", p.OriginalHeight, false)
	w.Num("project_duration_sec", p.ProjectDurationSec)
	w.ID("container_id", p.ContainerID, false)
	if p.ProjectServerID != nil {
		w.ID("project_server_id", *p.ProjectServerID, false)
	}
	w.Str("description", p.Description, false)
	w.Str("full_demo", p.FullDemo, false)
	w.Str("download_link", p.DownloadLink, false)
	if p.AepFileURL != nil {
		w.Str("aep_file_url", *p.AepFileURL, false)
	}
	if p.AepFileMD5 != nil {
		w.Str("aep_file_md5", *p.AepFileMD5, false)
	}
	if p.AepFileSizeBytes != nil {
		w.Key("aep_file_size_bytes", false)
		w.B = strconv.AppendInt(w.B, *p.AepFileSizeBytes, 10)
	}
	w.Num("min_duration_sec", p.MinDurationSec)
	w.Num("max_duration_sec", p.MaxDurationSec)
	w.Int("free_fps", p.FreeFPS, false)
	w.Num("vip_factor", p.VipFactor)
	w.Str("render_aep_comp", p.RenderAepComp, false)
	w.Bool("is_published", p.IsPublished)
	w.Close('}')
	jsonw.List(w, "scenes", f.Scenes, appendSceneFull)
	jsonw.List(w, "shared_colors", f.SharedColors, func(w *jsonw.Writer, c domain.SharedColor) {
		w.Open('{')
		w.ID("id", c.ID, true)
		w.ID("project_id", c.ProjectID, false)
		w.Str("element_key", c.ElementKey, false)
		w.Str("title", c.Title, false)
		w.Str("icon", c.Icon, false)
		w.Str("attr_value", c.AttrValue, false)
		w.Str("default_color", c.DefaultColor, false)
		w.Int("sort", c.Sort, false)
		w.Close('}')
	})
	jsonw.List(w, "shared_layers", f.SharedLayers, func(w *jsonw.Writer, l domain.SharedLayer) {
		w.Open('{')
		w.ID("id", l.ID, true)
		w.ID("project_id", l.ProjectID, false)
		w.Str("key", l.Key, false)
		w.Str("title", l.Title, false)
		w.Str("type", l.Type, false)
		w.Str("default_value", l.DefaultValue, false)
		w.Str("font_face", l.FontFace, false)
		w.Str("justify", l.Justify, false)
		w.Int("font_size", l.FontSize, false)
		w.Int("position_in_container", l.PositionInContainer, false)
		w.Bool("is_text_box", l.IsTextBox)
		w.Int("sort", l.Sort, false)
		w.Close('}')
	})
	jsonw.List(w, "character_controllers", f.CharacterControllers, func(w *jsonw.Writer, c domain.CharacterController) {
		w.Open('{')
		w.ID("id", c.ID, true)
		w.Str("name", c.Name, false)
		w.Str("key", c.Key, false)
		w.Int("sort", c.Sort, false)
		w.Value("options", c.Options, "[]")
		w.Close('}')
	})
	jsonw.List(w, "character_presets", f.CharacterPresets, func(w *jsonw.Writer, c domain.CharacterPreset) {
		w.Open('{')
		w.ID("id", c.ID, true)
		w.ID("key", c.Key, false)
		w.Str("name", c.Name, false)
		w.Str("icon", c.Icon, false)
		w.Int("sort", c.Sort, false)
		jsonw.List(w, "controllers", c.Controllers, func(w *jsonw.Writer, v domain.CharacterPresetValue) {
			w.Open('{')
			w.Str("name", v.Name, true)
			w.Str("key", v.Key, false)
			w.Str("value", v.Value, false)
			w.Close('}')
		})
		w.Close('}')
	})
	jsonw.List(w, "preset_stories", f.PresetStories, func(w *jsonw.Writer, s domain.PresetStory) {
		w.Open('{')
		w.ID("id", s.ID, true)
		w.ID("project_id", s.ProjectID, false)
		w.Str("name", s.Name, false)
		w.Str("description", s.Description, false)
		w.Str("demo", s.Demo, false)
		if s.MusicID != nil {
			w.ID("music_id", *s.MusicID, false)
		}
		w.Int("sort", s.Sort, false)
		w.Bool("is_published", s.IsPublished)
		w.Int("scene_count", s.SceneCount, false)
		w.Close('}')
	})
	w.Close('}')
}

func appendSceneFull(w *jsonw.Writer, s domain.SceneFull) {
	w.Open('{')
	w.ID("id", s.ID, true)
	w.ID("project_id", s.ProjectID, false)
	w.Str("key", s.Key, false)
	w.Str("title", s.Title, false)
	w.Str("scene_type", s.SceneType, false)
	w.Str("image", s.Image, false)
	w.Str("demo", s.Demo, false)
	w.Str("snapshot_url", s.SnapshotURL, false)
	w.Key("localized_title", false)
	w.B = appendStringMap(w.B, s.LocalizedTitle)
	w.Num("default_duration_sec", s.DefaultDurationSec)
	w.Num("min_duration_sec", s.MinDurationSec)
	w.Num("max_duration_sec", s.MaxDurationSec)
	w.Num("overlap_at_end_sec", s.OverlapAtEndSec)
	w.Bool("manual_color_selection", s.ManualColorSelection)
	w.Int("sort", s.Sort, false)
	jsonw.List(w, "contents", s.Contents, appendContent)
	jsonw.List(w, "colors", s.Colors, appendColor)
	jsonw.List(w, "color_presets", s.ColorPresets, func(w *jsonw.Writer, p domain.ColorPreset) {
		w.Open('{')
		w.ID("id", p.ID, true)
		w.Str("name", p.Name, false)
		w.Int("sort", p.Sort, false)
		jsonw.List(w, "items", p.Items, func(w *jsonw.Writer, i domain.ColorPresetItem) {
			w.Open('{')
			w.Str("element_key", i.ElementKey, true)
			w.Str("value", i.Value, false)
			w.Int("sort", i.Sort, false)
			w.Close('}')
		})
		w.Close('}')
	})
	jsonw.List(w, "characters", s.Characters, func(w *jsonw.Writer, c domain.Character) {
		w.Open('{')
		w.ID("id", c.ID, true)
		w.Str("key", c.Key, false)
		w.Str("name", c.Name, false)
		w.Str("icon", c.Icon, false)
		jsonw.List(w, "controllers", c.Controllers, func(w *jsonw.Writer, k domain.SceneCharacterController) {
			w.Open('{')
			w.ID("id", k.ID, true)
			w.Str("name", k.Name, false)
			w.Str("key", k.Key, false)
			w.Str("default_value", k.DefaultValue, false)
			jsonw.List(w, "options", k.Options, func(w *jsonw.Writer, o domain.ControllerOption) {
				w.Open('{')
				w.Str("name", o.Name, true)
				w.Str("icon", o.Icon, false)
				w.Str("value", o.Value, false)
				w.Close('}')
			})
			w.Close('}')
		})
		w.Close('}')
	})
	jsonw.List(w, "repeaters", s.Repeaters, func(w *jsonw.Writer, r domain.Repeater) {
		w.Open('{')
		w.ID("id", r.ID, true)
		w.Str("title", r.Title, false)
		w.Str("repeat_box_key", r.RepeatBoxKey, false)
		w.Str("repeat_item_key", r.RepeatItemKey, false)
		w.Str("repeat_sort_strategy", r.RepeatSortStrategy, false)
		w.Int("max_repeat_count", r.MaxRepeatCount, false)
		w.Int("sort", r.Sort, false)
		w.Close('}')
	})
	w.Close('}')
}

// appendContent writes a content element, the bulk of the aggregate (800 of a 40 x 25
// project's objects): each field's name with its separators is one constant, appended to a
// local slice stored back once.
func appendContent(w *jsonw.Writer, e domain.ContentElement) {
	b := append(w.B, `{"id":`...)
	b = jsonw.AppendUUID(b, e.ID)
	b = jsonw.AppendUUID(append(b, `,"scene_id":`...), e.SceneID)
	b = appendOptUUID(append(b, `,"repeater_item_id":`...), e.RepeaterItemID)
	b = jsonw.AppendString(append(b, `,"key":`...), e.Key)
	b = jsonw.AppendString(append(b, `,"title":`...), e.Title)
	b = jsonw.AppendString(append(b, `,"hint":`...), e.Hint)
	b = jsonw.AppendString(append(b, `,"type":`...), e.Type)
	b = jsonw.AppendString(append(b, `,"default_value":`...), e.DefaultValue)
	b = jsonw.AppendString(append(b, `,"font_face":`...), e.FontFace)
	b = jsonw.AppendString(append(b, `,"justify":`...), e.Justify)
	b = jsonw.AppendString(append(b, `,"direction_layer_key":`...), e.DirectionLayerKey)
	b = jsonw.AppendString(append(b, `,"ai_input_type":`...), e.AiInputType)
	b = jsonw.AppendString(append(b, `,"opacity_controller_key":`...), e.OpacityControllerKey)
	b = appendRaw(append(b, `,"localized_title":`...), e.LocalizedTitle, "{}")
	b = appendOptUUID(append(b, `,"font_id":`...), e.FontID)
	b = strconv.AppendInt(append(b, `,"font_size":`...), int64(e.FontSize), 10)
	b = strconv.AppendInt(append(b, `,"position_in_container":`...), int64(e.PositionInContainer), 10)
	b = strconv.AppendBool(append(b, `,"is_text_box":`...), e.IsTextBox)
	b = appendOptInt(append(b, `,"max_size":`...), e.MaxSize)
	b = strconv.AppendInt(append(b, `,"direction_layer_value":`...), int64(e.DirectionLayerValue), 10)
	b = strconv.AppendBool(append(b, `,"video_support":`...), e.VideoSupport)
	b = appendRaw(append(b, `,"mapped_list":`...), e.MappedList, "[]")
	b = strconv.AppendBool(append(b, `,"is_hidden":`...), e.IsHidden)
	b = strconv.AppendInt(append(b, `,"virtual_count":`...), int64(e.VirtualCount), 10)
	b = strconv.AppendInt(append(b, `,"sort":`...), int64(e.Sort), 10)
	w.B = append(b, '}')
}

// appendColor writes a colour element as appendContent writes a content element.
func appendColor(w *jsonw.Writer, c domain.ColorElement) {
	b := append(w.B, `{"id":`...)
	b = jsonw.AppendUUID(b, c.ID)
	b = jsonw.AppendUUID(append(b, `,"scene_id":`...), c.SceneID)
	b = jsonw.AppendString(append(b, `,"element_key":`...), c.ElementKey)
	b = jsonw.AppendString(append(b, `,"title":`...), c.Title)
	b = jsonw.AppendString(append(b, `,"icon":`...), c.Icon)
	b = jsonw.AppendString(append(b, `,"default_color":`...), c.DefaultColor)
	b = jsonw.AppendString(append(b, `,"attr_value":`...), c.AttrValue)
	b = strconv.AppendInt(append(b, `,"sort":`...), int64(c.Sort), 10)
	w.B = append(b, '}')
}

// appendStringMap appends m as encoding/json writes a map of strings: keys in order, and {}
// for none.
func appendStringMap(b []byte, m map[string]string) []byte {
	var few [8]string
	keys := few[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonw.AppendString(b, k), ':')
		b = jsonw.AppendString(b, m[k])
	}
	return append(b, '}')
}

// appendOptUUID appends a nullable id.
func appendOptUUID(b []byte, id *uuid.UUID) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return jsonw.AppendUUID(b, *id)
}

// appendOptInt appends a nullable integer.
func appendOptInt(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(*n), 10)
}

// appendRaw appends stored JSON, or fallback when there is none.
func appendRaw(b []byte, raw json.RawMessage, fallback string) []byte {
	if len(raw) == 0 {
		return append(b, fallback...)
	}
	return append(b, raw...)
}
