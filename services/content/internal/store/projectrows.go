package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// The project aggregate's largest reads (a 40 x 25 project has 800 content and 200 colour
// elements, and 40 scenes) scan their rows straight into domain values: sqlc's generated code
// allocates each row and the list of arguments of its Scan, regrows its slice, and the rows
// were then copied again into domain values; that was over half of the aggregate's allocated
// bytes. The SQL stays the generated query's (queries/projects.sql), taken from it once.

// sqlOf is the SQL text of the one generated query read runs ("" if it runs another number of
// queries: scanEach then refuses to run).
func sqlOf(read func(q *contentdb.Queries)) string {
	rec := &recorder{}
	read(contentdb.New(rec))
	if len(rec.calls) != 1 {
		return ""
	}
	return rec.calls[0].sql
}

// sqlOfByProject is the SQL of a generated read by project id.
func sqlOfByProject[R any](read func(*contentdb.Queries, context.Context, uuid.UUID) (R, error)) string {
	return sqlOf(func(q *contentdb.Queries) { _, _ = read(q, context.Background(), uuid.Nil) })
}

var (
	listContentsByProjectSQL                  = sqlOfByProject((*contentdb.Queries).ListContentsByProject)
	listColorsByProjectSQL                    = sqlOfByProject((*contentdb.Queries).ListColorsByProject)
	listScenesByProjectSQL                    = sqlOfByProject((*contentdb.Queries).ListScenesByProject)
	listColorPresetsByProjectSQL              = sqlOfByProject((*contentdb.Queries).ListColorPresetsByProject)
	listCharactersByProjectSQL                = sqlOfByProject((*contentdb.Queries).ListCharactersByProject)
	listSceneCharacterControllersByProjectSQL = sqlOfByProject((*contentdb.Queries).ListSceneCharacterControllersByProject)
	listRepeatersByProjectSQL                 = sqlOfByProject((*contentdb.Queries).ListRepeatersByProject)
)

// contentColumns are the columns of listContentsByProjectSQL in the order the fields of a
// ContentElement are scanned.
var contentColumns = []string{"id", "scene_id", "project_id", "repeater_item_id", "key", "title", "hint", "type",
	"default_value", "font_face", "justify", "direction_layer_key", "ai_input_type", "opacity_controller_key",
	"localized_title", "font_id", "font_size", "position_in_container", "is_text_box", "max_size",
	"direction_layer_value", "video_support", "mapped_list", "is_hidden", "virtual_count", "sort"}

var (
	contentRows    rowBuffers[domain.ContentElement]
	colorRows      rowBuffers[domain.ColorElement]
	sceneRows      rowBuffers[sceneRow]
	presetRows     rowBuffers[contentdb.SceneColorPreset]
	characterRows  rowBuffers[contentdb.SceneCharacter]
	controllerRows rowBuffers[contentdb.SceneCharacterController]
	repeaterRows   rowBuffers[contentdb.RepeaterItem]
)

// listContentsByProject is ListContentsByProject scanned into content elements.
func (s *Store) listContentsByProject(ctx context.Context, projectID uuid.UUID) ([]domain.ContentElement, error) {
	var e domain.ContentElement
	return scanEach(ctx, s.db, listContentsByProjectSQL, projectID, contentColumns, &contentRows, &e,
		&e.ID, &e.SceneID, &e.ProjectID, &e.RepeaterItemID, &e.Key, &e.Title, &e.Hint, &e.Type,
		&e.DefaultValue, &e.FontFace, &e.Justify, &e.DirectionLayerKey, &e.AiInputType, &e.OpacityControllerKey,
		&e.LocalizedTitle, &e.FontID, &e.FontSize, &e.PositionInContainer, &e.IsTextBox, &e.MaxSize,
		&e.DirectionLayerValue, &e.VideoSupport, &e.MappedList, &e.IsHidden, &e.VirtualCount, &e.Sort)
}

var colorColumns = []string{"id", "scene_id", "project_id", "element_key", "title", "icon", "default_color",
	"attr_value", "sort"}

// listColorsByProject is ListColorsByProject scanned into colour elements.
func (s *Store) listColorsByProject(ctx context.Context, projectID uuid.UUID) ([]domain.ColorElement, error) {
	var c domain.ColorElement
	return scanEach(ctx, s.db, listColorsByProjectSQL, projectID, colorColumns, &colorRows, &c,
		&c.ID, &c.SceneID, &c.ProjectID, &c.ElementKey, &c.Title, &c.Icon, &c.DefaultColor, &c.AttrValue, &c.Sort)
}

// rowBuffers recycles the buffers rows are gathered in until their number is known.
type rowBuffers[T any] struct{ pool sync.Pool }

func (b *rowBuffers[T]) get() *[]T {
	if held, ok := b.pool.Get().(*[]T); ok {
		return held
	}
	return new([]T)
}

// put returns held emptied (its rows' strings are not kept alive by a pooled buffer).
func (b *rowBuffers[T]) put(held *[]T) {
	clear(*held)
	*held = (*held)[:0]
	b.pool.Put(held)
}

var sceneColumns = []string{"id", "project_id", "key", "title", "scene_type", "image", "demo", "snapshot_url",
	"localized_title", "default_duration_sec", "min_duration_sec", "max_duration_sec", "overlap_at_end_sec",
	"manual_color_selection", "sort", "created_at"}

// sceneRow is a scene as stored: its titles are decoded once the rows are read.
type sceneRow struct {
	domain.Scene
	localizedTitle json.RawMessage
}

// listScenesByProject is ListScenesByProject scanned into scenes.
func (s *Store) listScenesByProject(ctx context.Context, projectID uuid.UUID) ([]domain.Scene, error) {
	var r sceneRow
	rows, err := scanEach(ctx, s.db, listScenesByProjectSQL, projectID, sceneColumns, &sceneRows, &r,
		&r.ID, &r.ProjectID, &r.Key, &r.Title, &r.SceneType, &r.Image, &r.Demo, &r.SnapshotURL, &r.localizedTitle,
		&r.DefaultDurationSec, &r.MinDurationSec, &r.MaxDurationSec, &r.OverlapAtEndSec, &r.ManualColorSelection,
		&r.Sort, &r.CreatedAt)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Scene, len(rows))
	for i, r := range rows {
		out[i] = r.Scene
		if out[i].LocalizedTitle, err = decodeStrings(r.localizedTitle); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// The scene-level reads with fewer rows (two presets, a character, two controllers and a
// repeater per scene) are scanned into the generated row types, then mapped as before.

var presetColumns = []string{"id", "scene_id", "project_id", "name", "sort", "items"}

func (s *Store) colorPresetRowsByProject(ctx context.Context, projectID uuid.UUID) ([]contentdb.SceneColorPreset, error) {
	var r contentdb.SceneColorPreset
	return scanEach(ctx, s.db, listColorPresetsByProjectSQL, projectID, presetColumns, &presetRows, &r,
		&r.ID, &r.SceneID, &r.ProjectID, &r.Name, &r.Sort, &r.Items)
}

var characterColumns = []string{"id", "scene_id", "project_id", "key", "name", "icon", "sort"}

func (s *Store) characterRowsByProject(ctx context.Context, projectID uuid.UUID) ([]contentdb.SceneCharacter, error) {
	var r contentdb.SceneCharacter
	return scanEach(ctx, s.db, listCharactersByProjectSQL, projectID, characterColumns, &characterRows, &r,
		&r.ID, &r.SceneID, &r.ProjectID, &r.Key, &r.Name, &r.Icon, &r.Sort)
}

var controllerColumns = []string{"id", "character_id", "project_id", "name", "key", "default_value", "options", "sort"}

func (s *Store) controllerRowsByProject(ctx context.Context, projectID uuid.UUID) ([]contentdb.SceneCharacterController, error) {
	var r contentdb.SceneCharacterController
	return scanEach(ctx, s.db, listSceneCharacterControllersByProjectSQL, projectID, controllerColumns, &controllerRows, &r,
		&r.ID, &r.CharacterID, &r.ProjectID, &r.Name, &r.Key, &r.DefaultValue, &r.Options, &r.Sort)
}

var repeaterColumns = []string{"id", "scene_id", "project_id", "title", "repeat_box_key", "repeat_item_key",
	"repeat_sort_strategy", "max_repeat_count", "sort"}

func (s *Store) repeaterRowsByProject(ctx context.Context, projectID uuid.UUID) ([]contentdb.RepeaterItem, error) {
	var r contentdb.RepeaterItem
	return scanEach(ctx, s.db, listRepeatersByProjectSQL, projectID, repeaterColumns, &repeaterRows, &r,
		&r.ID, &r.SceneID, &r.ProjectID, &r.Title, &r.RepeatBoxKey, &r.RepeatItemKey, &r.RepeatSortStrategy,
		&r.MaxRepeatCount, &r.Sort)
}

// scanEach runs query and scans each row into *row through dest (pointers to row's fields, one
// per column), and returns copies of the rows in a slice allocated once at their number. The
// columns must be named as columns says: a generated query whose columns changed fails here
// instead of filling the wrong fields.
func scanEach[T any](ctx context.Context, db contentdb.DBTX, query string, arg any, columns []string,
	buffers *rowBuffers[T], row *T, dest ...any) ([]T, error) {
	if query == "" {
		return nil, errors.New("store: a hand-scanned read has no generated query")
	}
	rows, err := db.Query(ctx, query, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	held := buffers.get()
	defer buffers.put(held)
	for rows.Next() {
		if len(*held) == 0 {
			if err := sameColumns(rows, columns); err != nil {
				return nil, err
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		*held = append(*held, *row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return append(make([]T, 0, len(*held)), *held...), nil
}

func sameColumns(rows pgx.Rows, columns []string) error {
	fields := rows.FieldDescriptions()
	ok := len(fields) == len(columns)
	for i := 0; ok && i < len(fields); i++ {
		ok = fields[i].Name == columns[i]
	}
	if !ok {
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.Name
		}
		return fmt.Errorf("store: the query returns columns %v, the scan expects %v", names, columns)
	}
	return nil
}
