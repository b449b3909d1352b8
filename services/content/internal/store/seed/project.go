// Package seed fills a content database: a small realistic demo catalog (idempotent, for
// `make run`) and a large synthetic one for the benchmark, written with COPY.
package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the seed writes through: a pool, a connection or a transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// ProjectShape sizes a generated project.
type ProjectShape struct {
	Scenes           int
	ContentsPerScene int
	ColorsPerScene   int
	// Extras adds per scene 2 colour presets, 1 character with 2 controllers and 1 repeater,
	// and per project shared layers and colours, character controllers and presets and
	// preset stories.
	Extras bool
}

// ids makes UUIDv7s in bulk without an error per call.
type ids struct{ rng *rand.Rand }

func (g ids) next() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		// The clock source failed: fall back to random bits, still unique.
		var b [16]byte
		for i := range b {
			b[i] = byte(g.rng.IntN(256))
		}
		return uuid.UUID(b)
	}
	return id
}

var (
	contentTypes = []string{"text", "text", "text", "image", "video", "logo"}
	justifies    = []string{"left", "center", "right"}
	attrs        = []string{"fill", "stroke", "tracking", "dropshadow"}
	palette      = []string{"#1e88e5", "#e53935", "#fdd835", "#43a047", "#8e24aa", "#ffffff", "#212121", "#ff7043"}
	fontFaces    = []string{"Montserrat-Bold", "OpenSans-Regular", "PlayfairDisplay-Italic", "Roboto-Medium", "Lato-Light"}
)

// mustJSON encodes the seed's own maps and slices of strings and numbers, which always encode.
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// copyTable is one COPY: a table, its columns and the rows in column order.
type copyTable struct {
	name string
	cols []string
	rows [][]any
}

// copyAll writes every non-empty table with COPY.
func copyAll(ctx context.Context, db DB, tables []copyTable) error {
	for _, t := range tables {
		if len(t.rows) == 0 {
			continue
		}
		if _, err := db.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(t.rows)); err != nil {
			return fmt.Errorf("seed %s: %w", t.name, err)
		}
	}
	return nil
}

// InsertProjectContent writes the scenes and elements of project (already inserted) with COPY:
// one statement per table whatever the size.
func InsertProjectContent(ctx context.Context, db DB, rng *rand.Rand, projectID uuid.UUID, shape ProjectShape, fonts []uuid.UUID) error {
	g := ids{rng}
	now := time.Now().UTC()
	var scenes, contents, colors, presets, chars, ctrls, repeaters [][]any
	sceneIDs := make([]uuid.UUID, shape.Scenes)
	for s := 0; s < shape.Scenes; s++ {
		sid := g.next()
		sceneIDs[s] = sid
		kind := "content"
		switch {
		case s == 0:
			kind = "intro"
		case s == shape.Scenes-1 && shape.Scenes > 1:
			kind = "outro"
		}
		dur := 3 + float64(rng.IntN(5))
		scenes = append(scenes, []any{sid, projectID, fmt.Sprintf("scene-%02d", s+1), fmt.Sprintf("Scene %d", s+1), kind,
			fmt.Sprintf("https://cdn.videotpl.dev/scenes/%s.jpg", sid), fmt.Sprintf("https://cdn.videotpl.dev/scenes/%s.mp4", sid), "",
			mustJSON(map[string]string{"en": fmt.Sprintf("Scene %d", s+1), "es": fmt.Sprintf("Escena %d", s+1)}),
			dur, dur - 1, dur + 4, 0.5, false, s + 1, now})
		var repeaterID *uuid.UUID
		if shape.Extras {
			rid := g.next()
			repeaterID = &rid
			repeaters = append(repeaters, []any{rid, sid, projectID, "Gallery", "gallery_box", "gallery_item", "manual", 6, 1})
			for p := 0; p < 2; p++ {
				items := make([]map[string]any, 0, shape.ColorsPerScene)
				for c := 0; c < shape.ColorsPerScene; c++ {
					items = append(items, map[string]any{"element_key": fmt.Sprintf("color_%02d", c+1), "value": palette[(c+p*3)%len(palette)], "sort": c + 1})
				}
				presets = append(presets, []any{g.next(), sid, projectID, []string{"Daylight", "Night"}[p], p + 1, mustJSON(items)})
			}
			cid := g.next()
			chars = append(chars, []any{cid, sid, projectID, "presenter", "Presenter", "https://cdn.videotpl.dev/icons/presenter.svg", 1})
			for k, key := range []string{"skin", "outfit"} {
				opts := []map[string]string{{"name": "Light", "icon": "", "value": "light"}, {"name": "Dark", "icon": "", "value": "dark"}}
				ctrls = append(ctrls, []any{g.next(), cid, projectID, key, key, "light", mustJSON(opts), k + 1})
			}
		}
		for c := 0; c < shape.ContentsPerScene; c++ {
			typ := contentTypes[c%len(contentTypes)]
			var fontID *uuid.UUID
			if typ == "text" && len(fonts) > 0 {
				f := fonts[c%len(fonts)]
				fontID = &f
			}
			var inRepeater *uuid.UUID
			if repeaterID != nil && typ == "image" && c%2 == 1 {
				inRepeater = repeaterID
			}
			var maxSize *int32
			if typ == "text" {
				n := int32(40 + 10*(c%4))
				maxSize = &n
			}
			contents = append(contents, []any{g.next(), sid, projectID, inRepeater, fmt.Sprintf("content_%02d", c+1),
				fmt.Sprintf("Field %d", c+1), "Shown to the user while editing", typ, fmt.Sprintf("Default %d", c+1),
				fontFaces[c%len(fontFaces)], justifies[c%len(justifies)], "", "", "",
				mustJSON(map[string]string{"en": fmt.Sprintf("Field %d", c+1)}), fontID, 24 + 4*(c%5), c + 1,
				typ == "text" && c%3 == 0, maxSize, 0, typ == "video", mustJSON([]map[string]any{}), false, 0, c + 1})
		}
		for c := 0; c < shape.ColorsPerScene; c++ {
			colors = append(colors, []any{g.next(), sid, projectID, fmt.Sprintf("color_%02d", c+1), fmt.Sprintf("Colour %d", c+1),
				"", palette[c%len(palette)], attrs[c%len(attrs)], c + 1})
		}
	}
	tables := []copyTable{
		{"scenes", []string{"id", "project_id", "key", "title", "scene_type", "image", "demo", "snapshot_url", "localized_title",
			"default_duration_sec", "min_duration_sec", "max_duration_sec", "overlap_at_end_sec", "manual_color_selection", "sort", "created_at"}, scenes},
		{"repeater_items", []string{"id", "scene_id", "project_id", "title", "repeat_box_key", "repeat_item_key", "repeat_sort_strategy",
			"max_repeat_count", "sort"}, repeaters},
		{"scene_contents", []string{"id", "scene_id", "project_id", "repeater_item_id", "key", "title", "hint", "type", "default_value",
			"font_face", "justify", "direction_layer_key", "ai_input_type", "opacity_controller_key", "localized_title", "font_id",
			"font_size", "position_in_container", "is_text_box", "max_size", "direction_layer_value", "video_support", "mapped_list",
			"is_hidden", "virtual_count", "sort"}, contents},
		{"scene_colors", []string{"id", "scene_id", "project_id", "element_key", "title", "icon", "default_color", "attr_value", "sort"}, colors},
		{"scene_color_presets", []string{"id", "scene_id", "project_id", "name", "sort", "items"}, presets},
		{"scene_characters", []string{"id", "scene_id", "project_id", "key", "name", "icon", "sort"}, chars},
		{"scene_character_controllers", []string{"id", "character_id", "project_id", "name", "key", "default_value", "options", "sort"}, ctrls},
	}
	if shape.Extras {
		var layers, shared, cc, cp, stories, storyScenes [][]any
		for i := 0; i < 4; i++ {
			layers = append(layers, []any{g.next(), projectID, fmt.Sprintf("layer_%d", i+1), fmt.Sprintf("Shared layer %d", i+1),
				[]string{"logo", "text", "text", "image"}[i], "", fontFaces[i%len(fontFaces)], "center", 32, i + 1, i == 1, i + 1})
			shared = append(shared, []any{g.next(), projectID, fmt.Sprintf("brand_%d", i+1), fmt.Sprintf("Brand colour %d", i+1), "",
				attrs[i%len(attrs)], palette[i%len(palette)], i + 1})
		}
		for i, key := range []string{"hair", "eyes", "mood"} {
			cc = append(cc, []any{g.next(), projectID, key, key, i + 1, mustJSON([]map[string]string{{"name": "Default", "value": "default"}})})
		}
		for i, name := range []string{"Casual", "Business"} {
			cp = append(cp, []any{g.next(), projectID, g.next(), name, "", i + 1,
				mustJSON([]map[string]string{{"name": "hair", "key": "hair", "value": "short"}, {"name": "mood", "key": "mood", "value": "happy"}})})
		}
		for i := 0; i < 3 && len(sceneIDs) > 0; i++ {
			stID := g.next()
			stories = append(stories, []any{stID, projectID, fmt.Sprintf("Story %d", i+1), "A ready-made selection", "", nil, i + 1, true, now})
			for pos := 0; pos < min(5, len(sceneIDs)); pos++ {
				storyScenes = append(storyScenes, []any{stID, pos + 1, projectID, sceneIDs[(pos+i)%len(sceneIDs)], nil})
			}
		}
		tables = append(tables,
			copyTable{"shared_layers", []string{"id", "project_id", "key", "title", "type", "default_value", "font_face", "justify", "font_size",
				"position_in_container", "is_text_box", "sort"}, layers},
			copyTable{"shared_colors", []string{"id", "project_id", "element_key", "title", "icon", "attr_value", "default_color", "sort"}, shared},
			copyTable{"character_controllers", []string{"id", "project_id", "name", "key", "sort", "options"}, cc},
			copyTable{"character_presets", []string{"id", "project_id", "key", "name", "icon", "sort", "controllers"}, cp},
			copyTable{"preset_stories", []string{"id", "project_id", "name", "description", "demo", "music_id", "sort", "is_published", "created_at"}, stories},
			copyTable{"preset_story_scenes", []string{"preset_story_id", "position", "project_id", "scene_id", "duration_sec"}, storyScenes},
		)
	}
	return copyAll(ctx, db, tables)
}
