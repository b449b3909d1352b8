package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/pkg/httpx/jsonw"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// projectFullOut is the aggregate through the generated types, the reference the hand-written
// encoder must match.
func projectFullOut(f domain.ProjectFull) content.ProjectFull {
	return content.ProjectFull{Project: projectOut(f.Project),
		Scenes: mapAll(f.Scenes, sceneFullOut), SharedColors: mapAll(f.SharedColors, sharedColorOut),
		SharedLayers:         mapAll(f.SharedLayers, sharedLayerOut),
		CharacterControllers: mapAll(f.CharacterControllers, characterControllerOut),
		CharacterPresets:     mapAll(f.CharacterPresets, characterPresetOut),
		PresetStories:        mapAll(f.PresetStories, presetStoryOut)}
}

func TestProjectFullJSONMatchesTheGeneratedTypes(t *testing.T) {
	tricky := "quote \" backslash \\ tab \t nl \n ctl \x01 html <a&b> ü 日本 \u2028 bad \xff end"
	id := func() uuid.UUID { return uuid.New() }
	server, music, font, repeater := id(), id(), id(), id()
	size := int64(123456789)
	maxSize := 40
	url, md5 := "https://cdn/x.aep", "d41d8cd98f00b204e9800998ecf8427e"
	scene := domain.Scene{ID: id(), ProjectID: id(), Key: "intro", Title: tricky, SceneType: "intro",
		LocalizedTitle: map[string]string{"de": tricky, "en": "Intro", "a<b>": "&", "": "", "ü": "日本", "en-GB": "x"}, DefaultDurationSec: 3.25, MinDurationSec: 1e-7,
		MaxDurationSec: 1e21, OverlapAtEndSec: 0.1, ManualColorSelection: true, Sort: 2}
	cases := map[string]domain.ProjectFull{
		"an empty project": {Project: domain.Project{ProjectSummary: domain.ProjectSummary{ID: id(), Name: "p"}}},
		"every kind of value": {
			Project: domain.Project{ProjectSummary: domain.ProjectSummary{ID: id(), Name: tricky, Aspect: "16:9",
				OriginalWidth: 1920, OriginalHeight: 1080, ProjectDurationSec: 30.5}, ContainerID: id(),
				ProjectServerID: &server, AepFileURL: &url, AepFileMD5: &md5, AepFileSizeBytes: &size,
				FreeFPS: 25, VipFactor: 1.5, IsPublished: true},
			Scenes: []domain.SceneFull{{Scene: scene, SceneElements: domain.SceneElements{
				Contents: []domain.ContentElement{
					{ID: id(), SceneID: scene.ID, Key: "a", Title: tricky, LocalizedTitle: json.RawMessage(`{"en":"A \"b\""}`),
						MappedList: json.RawMessage(`[{"from":"x","n":1.5,"deep":{"k":[1,2]}}]`), FontID: &font,
						RepeaterItemID: &repeater, MaxSize: &maxSize, FontSize: -3, IsTextBox: true},
					{ID: id(), SceneID: scene.ID, Key: "b"},
				},
				Colors: []domain.ColorElement{{ID: id(), SceneID: scene.ID, ElementKey: "bg", AttrValue: "stroke", Sort: 1},
					{ID: id(), SceneID: scene.ID, ElementKey: tricky, Title: tricky, Icon: "i.svg", DefaultColor: "#fff", AttrValue: "fill", Sort: -2}},
				ColorPresets: []domain.ColorPreset{{ID: id(), Name: "Night", Items: []domain.ColorPresetItem{{ElementKey: "bg", Value: "#000", Sort: 1}}},
					{ID: id(), Name: "Empty", Items: []domain.ColorPresetItem{}}},
				Characters: []domain.Character{{ID: id(), Key: "hero", Controllers: []domain.SceneCharacterController{{ID: id(), Key: "skin",
					Options: []domain.ControllerOption{{Name: "Light", Value: "l"}}}}}},
				Repeaters: []domain.Repeater{{ID: repeater, Title: "Gallery", MaxRepeatCount: 6}},
			}}, {Scene: domain.Scene{ID: id(), Key: "no titles"}}},
			SharedColors:         []domain.SharedColor{{ID: id(), ProjectID: id(), ElementKey: "brand", AttrValue: "fill"}},
			SharedLayers:         []domain.SharedLayer{{ID: id(), ProjectID: id(), Key: "logo", IsTextBox: true}},
			CharacterControllers: []domain.CharacterController{{ID: id(), Key: "hair", Options: []map[string]any{{"name": tricky, "n": 2.0}}}},
			CharacterPresets:     []domain.CharacterPreset{{ID: id(), Key: id(), Name: "Casual", Controllers: []domain.CharacterPresetValue{{Name: "h", Key: "h", Value: tricky}}}},
			PresetStories:        []domain.PresetStory{{ID: id(), ProjectID: id(), Name: "s", MusicID: &music, SceneCount: 3}, {ID: id(), Name: "no music"}},
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			got := appendProjectFull(nil, f)
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			ref, err := json.Marshal(projectFullOut(f))
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(ref, &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("hand-written JSON differs from the generated types':\n got %s\nwant %s", got, ref)
			}
		})
	}
}

func TestTemplatePageJSONMatchesTheGeneratedTypes(t *testing.T) {
	cards := []domain.TemplateCard{
		{ContainerID: uuid.New(), Slug: "a", Name: "Ünïcode <b>", RateAvg: 4.75, RateCount: 12, UseCount: 1 << 40,
			IsPremium: true, AvailableAspects: []string{"16:9", "9:16"}},
		{ContainerID: uuid.New(), Slug: "b", AvailableAspects: nil},
	}
	for _, page := range [][]domain.TemplateCard{nil, cards} {
		meta := domain.PageMeta{Page: 2, PageSize: 20, Total: 41, HasMore: true}
		w := &jsonw.Writer{}
		writeTemplatePage(w, page, meta)
		ref, err := json.Marshal(content.TemplateCardPage{Data: mapAll(page, cardOut), Meta: metaOut(meta)})
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(w.B, &a); err != nil {
			t.Fatalf("invalid JSON %s: %v", w.B, err)
		}
		_ = json.Unmarshal(ref, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("got %s\nwant %s", w.B, ref)
		}
	}
}

// appendProjectFull encodes the aggregate into b.
func appendProjectFull(b []byte, f domain.ProjectFull) []byte {
	w := &jsonw.Writer{B: b}
	writeProjectFull(w, f)
	return w.B
}

func characterControllerOut(c domain.CharacterController) content.CharacterController {
	return content.CharacterController{Id: c.ID, Name: c.Name, Key: c.Key, Sort: c.Sort, Options: c.Options}
}

func characterPresetOut(c domain.CharacterPreset) content.CharacterPreset {
	return content.CharacterPreset{Id: c.ID, Key: c.Key, Name: c.Name, Icon: c.Icon, Sort: c.Sort,
		Controllers: mapAll(c.Controllers, func(v domain.CharacterPresetValue) content.CharacterPresetController {
			return content.CharacterPresetController{Name: v.Name, Key: v.Key, Value: v.Value}
		})}
}

// BenchmarkProjectFullJSON encodes a 40 x 25 project shaped like the benchmark's (seed.BigProject)
// without the database or HTTP: the encoder's own cost.
func BenchmarkProjectFullJSON(b *testing.B) {
	f := domain.ProjectFull{Project: domain.Project{ProjectSummary: domain.ProjectSummary{ID: uuid.New(), Name: "Bench 40 x 25",
		Aspect: "16:9", Resolution: "1920x1080", ChooseMode: "free", OriginalWidth: 1920, OriginalHeight: 1080,
		ProjectDurationSec: 120}, ContainerID: uuid.New(), FreeFPS: 25, VipFactor: 1, IsPublished: true}}
	font := uuid.New()
	for s := range 40 {
		scene := domain.SceneFull{Scene: domain.Scene{ID: uuid.New(), ProjectID: f.Project.ID, Key: fmt.Sprintf("scene-%02d", s+1),
			Title: fmt.Sprintf("Scene %d", s+1), SceneType: "content", Image: "https://cdn.videotpl.dev/scenes/" + uuid.NewString() + ".jpg",
			Demo: "https://cdn.videotpl.dev/scenes/" + uuid.NewString() + ".mp4", DefaultDurationSec: 5, MinDurationSec: 4, MaxDurationSec: 9,
			OverlapAtEndSec: 0.5, Sort: s + 1, LocalizedTitle: map[string]string{"en": fmt.Sprintf("Scene %d", s+1), "es": fmt.Sprintf("Escena %d", s+1)}}}
		for c := range 20 {
			e := domain.ContentElement{ID: uuid.New(), SceneID: scene.ID, ProjectID: f.Project.ID, Key: fmt.Sprintf("content_%02d", c+1),
				Title: fmt.Sprintf("Field %d", c+1), Hint: "Shown to the user while editing", Type: "text",
				DefaultValue: fmt.Sprintf("Default %d", c+1), FontFace: "Roboto", Justify: "center",
				LocalizedTitle: json.RawMessage(fmt.Sprintf(`{"en": "Field %d"}`, c+1)), MappedList: json.RawMessage(`[]`),
				FontSize: 24, PositionInContainer: c + 1, Sort: c + 1}
			if c%2 == 0 {
				n := 40
				e.FontID, e.MaxSize = &font, &n
			}
			scene.Contents = append(scene.Contents, e)
		}
		for c := range 5 {
			scene.Colors = append(scene.Colors, domain.ColorElement{ID: uuid.New(), SceneID: scene.ID, ElementKey: fmt.Sprintf("color_%02d", c+1),
				Title: fmt.Sprintf("Colour %d", c+1), DefaultColor: "#1e88e5", AttrValue: "fill", Sort: c + 1})
		}
		f.Scenes = append(f.Scenes, scene)
	}
	w := &jsonw.Writer{}
	writeProjectFull(w, f)
	b.SetBytes(int64(len(w.B)))
	b.ReportAllocs()
	for b.Loop() {
		w.B = w.B[:0]
		writeProjectFull(w, f)
	}
}
