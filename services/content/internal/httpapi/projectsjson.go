package httpapi

import (
	"net/http"
	"strconv"

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
	w.Value("localized_title", localized(s.LocalizedTitle), "{}")
	w.Num("default_duration_sec", s.DefaultDurationSec)
	w.Num("min_duration_sec", s.MinDurationSec)
	w.Num("max_duration_sec", s.MaxDurationSec)
	w.Num("overlap_at_end_sec", s.OverlapAtEndSec)
	w.Bool("manual_color_selection", s.ManualColorSelection)
	w.Int("sort", s.Sort, false)
	jsonw.List(w, "contents", s.Contents, appendContent)
	jsonw.List(w, "colors", s.Colors, func(w *jsonw.Writer, c domain.ColorElement) {
		w.Open('{')
		w.ID("id", c.ID, true)
		w.ID("scene_id", c.SceneID, false)
		w.Str("element_key", c.ElementKey, false)
		w.Str("title", c.Title, false)
		w.Str("icon", c.Icon, false)
		w.Str("default_color", c.DefaultColor, false)
		w.Str("attr_value", c.AttrValue, false)
		w.Int("sort", c.Sort, false)
		w.Close('}')
	})
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

func appendContent(w *jsonw.Writer, e domain.ContentElement) {
	w.Open('{')
	w.ID("id", e.ID, true)
	w.ID("scene_id", e.SceneID, false)
	w.OptID("repeater_item_id", e.RepeaterItemID)
	w.Str("key", e.Key, false)
	w.Str("title", e.Title, false)
	w.Str("hint", e.Hint, false)
	w.Str("type", e.Type, false)
	w.Str("default_value", e.DefaultValue, false)
	w.Str("font_face", e.FontFace, false)
	w.Str("justify", e.Justify, false)
	w.Str("direction_layer_key", e.DirectionLayerKey, false)
	w.Str("ai_input_type", e.AiInputType, false)
	w.Str("opacity_controller_key", e.OpacityControllerKey, false)
	w.Raw("localized_title", e.LocalizedTitle, "{}")
	w.OptID("font_id", e.FontID)
	w.Int("font_size", e.FontSize, false)
	w.Int("position_in_container", e.PositionInContainer, false)
	w.Bool("is_text_box", e.IsTextBox)
	w.OptInt("max_size", e.MaxSize)
	w.Int("direction_layer_value", e.DirectionLayerValue, false)
	w.Bool("video_support", e.VideoSupport)
	w.Raw("mapped_list", e.MappedList, "[]")
	w.Bool("is_hidden", e.IsHidden)
	w.Int("virtual_count", e.VirtualCount, false)
	w.Int("sort", e.Sort, false)
	w.Close('}')
}
