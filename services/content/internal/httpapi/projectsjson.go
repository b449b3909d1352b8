package httpapi

import (
	"net/http"
	"strconv"

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
	buf := jsonBuffers.Get().(*[]byte)
	defer jsonBuffers.Put(buf)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	out := &jw{b: (*buf)[:0], out: w}
	writeProjectFull(out, r.full)
	out.flush()
	*buf = out.b[:0]
	return out.err
}

func writeProjectFull(w *jw, f domain.ProjectFull) {
	w.open('{')
	w.key("project", true)
	p := f.Project
	w.open('{')
	w.id("id", p.ID, true)
	w.str("name", p.Name, false)
	w.str("aspect", p.Aspect, false)
	w.str("resolution", p.Resolution, false)
	w.str("choose_mode", p.ChooseMode, false)
	w.str("image", p.Image, false)
	w.int("original_width", p.OriginalWidth, false)
	w.int("original_height", p.OriginalHeight, false)
	w.num("project_duration_sec", p.ProjectDurationSec)
	w.id("container_id", p.ContainerID, false)
	if p.ProjectServerID != nil {
		w.id("project_server_id", *p.ProjectServerID, false)
	}
	w.str("description", p.Description, false)
	w.str("full_demo", p.FullDemo, false)
	w.str("download_link", p.DownloadLink, false)
	if p.AepFileURL != nil {
		w.str("aep_file_url", *p.AepFileURL, false)
	}
	if p.AepFileMD5 != nil {
		w.str("aep_file_md5", *p.AepFileMD5, false)
	}
	if p.AepFileSizeBytes != nil {
		w.key("aep_file_size_bytes", false)
		w.b = strconv.AppendInt(w.b, *p.AepFileSizeBytes, 10)
	}
	w.num("min_duration_sec", p.MinDurationSec)
	w.num("max_duration_sec", p.MaxDurationSec)
	w.int("free_fps", p.FreeFPS, false)
	w.num("vip_factor", p.VipFactor)
	w.str("render_aep_comp", p.RenderAepComp, false)
	w.bool("is_published", p.IsPublished)
	w.close('}')
	list(w, "scenes", f.Scenes, appendSceneFull)
	list(w, "shared_colors", f.SharedColors, func(w *jw, c domain.SharedColor) {
		w.open('{')
		w.id("id", c.ID, true)
		w.id("project_id", c.ProjectID, false)
		w.str("element_key", c.ElementKey, false)
		w.str("title", c.Title, false)
		w.str("icon", c.Icon, false)
		w.str("attr_value", c.AttrValue, false)
		w.str("default_color", c.DefaultColor, false)
		w.int("sort", c.Sort, false)
		w.close('}')
	})
	list(w, "shared_layers", f.SharedLayers, func(w *jw, l domain.SharedLayer) {
		w.open('{')
		w.id("id", l.ID, true)
		w.id("project_id", l.ProjectID, false)
		w.str("key", l.Key, false)
		w.str("title", l.Title, false)
		w.str("type", l.Type, false)
		w.str("default_value", l.DefaultValue, false)
		w.str("font_face", l.FontFace, false)
		w.str("justify", l.Justify, false)
		w.int("font_size", l.FontSize, false)
		w.int("position_in_container", l.PositionInContainer, false)
		w.bool("is_text_box", l.IsTextBox)
		w.int("sort", l.Sort, false)
		w.close('}')
	})
	list(w, "character_controllers", f.CharacterControllers, func(w *jw, c domain.CharacterController) {
		w.open('{')
		w.id("id", c.ID, true)
		w.str("name", c.Name, false)
		w.str("key", c.Key, false)
		w.int("sort", c.Sort, false)
		w.value("options", c.Options, "[]")
		w.close('}')
	})
	list(w, "character_presets", f.CharacterPresets, func(w *jw, c domain.CharacterPreset) {
		w.open('{')
		w.id("id", c.ID, true)
		w.id("key", c.Key, false)
		w.str("name", c.Name, false)
		w.str("icon", c.Icon, false)
		w.int("sort", c.Sort, false)
		list(w, "controllers", c.Controllers, func(w *jw, v domain.CharacterPresetValue) {
			w.open('{')
			w.str("name", v.Name, true)
			w.str("key", v.Key, false)
			w.str("value", v.Value, false)
			w.close('}')
		})
		w.close('}')
	})
	list(w, "preset_stories", f.PresetStories, func(w *jw, s domain.PresetStory) {
		w.open('{')
		w.id("id", s.ID, true)
		w.id("project_id", s.ProjectID, false)
		w.str("name", s.Name, false)
		w.str("description", s.Description, false)
		w.str("demo", s.Demo, false)
		if s.MusicID != nil {
			w.id("music_id", *s.MusicID, false)
		}
		w.int("sort", s.Sort, false)
		w.bool("is_published", s.IsPublished)
		w.int("scene_count", s.SceneCount, false)
		w.close('}')
	})
	w.close('}')
}

func appendSceneFull(w *jw, s domain.SceneFull) {
	w.open('{')
	w.id("id", s.ID, true)
	w.id("project_id", s.ProjectID, false)
	w.str("key", s.Key, false)
	w.str("title", s.Title, false)
	w.str("scene_type", s.SceneType, false)
	w.str("image", s.Image, false)
	w.str("demo", s.Demo, false)
	w.str("snapshot_url", s.SnapshotURL, false)
	w.value("localized_title", localized(s.LocalizedTitle), "{}")
	w.num("default_duration_sec", s.DefaultDurationSec)
	w.num("min_duration_sec", s.MinDurationSec)
	w.num("max_duration_sec", s.MaxDurationSec)
	w.num("overlap_at_end_sec", s.OverlapAtEndSec)
	w.bool("manual_color_selection", s.ManualColorSelection)
	w.int("sort", s.Sort, false)
	list(w, "contents", s.Contents, appendContent)
	list(w, "colors", s.Colors, func(w *jw, c domain.ColorElement) {
		w.open('{')
		w.id("id", c.ID, true)
		w.id("scene_id", c.SceneID, false)
		w.str("element_key", c.ElementKey, false)
		w.str("title", c.Title, false)
		w.str("icon", c.Icon, false)
		w.str("default_color", c.DefaultColor, false)
		w.str("attr_value", c.AttrValue, false)
		w.int("sort", c.Sort, false)
		w.close('}')
	})
	list(w, "color_presets", s.ColorPresets, func(w *jw, p domain.ColorPreset) {
		w.open('{')
		w.id("id", p.ID, true)
		w.str("name", p.Name, false)
		w.int("sort", p.Sort, false)
		list(w, "items", p.Items, func(w *jw, i domain.ColorPresetItem) {
			w.open('{')
			w.str("element_key", i.ElementKey, true)
			w.str("value", i.Value, false)
			w.int("sort", i.Sort, false)
			w.close('}')
		})
		w.close('}')
	})
	list(w, "characters", s.Characters, func(w *jw, c domain.Character) {
		w.open('{')
		w.id("id", c.ID, true)
		w.str("key", c.Key, false)
		w.str("name", c.Name, false)
		w.str("icon", c.Icon, false)
		list(w, "controllers", c.Controllers, func(w *jw, k domain.SceneCharacterController) {
			w.open('{')
			w.id("id", k.ID, true)
			w.str("name", k.Name, false)
			w.str("key", k.Key, false)
			w.str("default_value", k.DefaultValue, false)
			list(w, "options", k.Options, func(w *jw, o domain.ControllerOption) {
				w.open('{')
				w.str("name", o.Name, true)
				w.str("icon", o.Icon, false)
				w.str("value", o.Value, false)
				w.close('}')
			})
			w.close('}')
		})
		w.close('}')
	})
	list(w, "repeaters", s.Repeaters, func(w *jw, r domain.Repeater) {
		w.open('{')
		w.id("id", r.ID, true)
		w.str("title", r.Title, false)
		w.str("repeat_box_key", r.RepeatBoxKey, false)
		w.str("repeat_item_key", r.RepeatItemKey, false)
		w.str("repeat_sort_strategy", r.RepeatSortStrategy, false)
		w.int("max_repeat_count", r.MaxRepeatCount, false)
		w.int("sort", r.Sort, false)
		w.close('}')
	})
	w.close('}')
}

func appendContent(w *jw, e domain.ContentElement) {
	w.open('{')
	w.id("id", e.ID, true)
	w.id("scene_id", e.SceneID, false)
	w.optID("repeater_item_id", e.RepeaterItemID)
	w.str("key", e.Key, false)
	w.str("title", e.Title, false)
	w.str("hint", e.Hint, false)
	w.str("type", e.Type, false)
	w.str("default_value", e.DefaultValue, false)
	w.str("font_face", e.FontFace, false)
	w.str("justify", e.Justify, false)
	w.str("direction_layer_key", e.DirectionLayerKey, false)
	w.str("ai_input_type", e.AiInputType, false)
	w.str("opacity_controller_key", e.OpacityControllerKey, false)
	w.raw("localized_title", e.LocalizedTitle, "{}")
	w.optID("font_id", e.FontID)
	w.int("font_size", e.FontSize, false)
	w.int("position_in_container", e.PositionInContainer, false)
	w.bool("is_text_box", e.IsTextBox)
	w.optInt("max_size", e.MaxSize)
	w.int("direction_layer_value", e.DirectionLayerValue, false)
	w.bool("video_support", e.VideoSupport)
	w.raw("mapped_list", e.MappedList, "[]")
	w.bool("is_hidden", e.IsHidden)
	w.int("virtual_count", e.VirtualCount, false)
	w.int("sort", e.Sort, false)
	w.close('}')
}
