package store

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
	"github.com/videotpl/platform/services/content/internal/store/seed"
)

// The aggregate's reads, on the benchmark's project made harder (escapes, unicode, empty and
// long strings, NULLs): the hand-scanned reads equal the generated queries' rows mapped as
// before, and the whole aggregate read in one pipeline through the arena equals the same read
// run plainly, one query at a time with pgx's own scanning.
func TestTheAggregateReadsEqualTheGeneratedQueriesAndThePlainRead(t *testing.T) {
	pool := storePool(t)
	ctx := context.Background()
	info, err := seed.Bench(ctx, pool, 1)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("ü 日本 \"q\" \\ <&>\u2028", 2000)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{sql: `UPDATE scene_contents SET title = E'quote " backslash \\ tab \t nl \n ctl \x01 html <a&b> ü 日本',
			hint = '', localized_title = '{"en": "A \"b\"", "de": "ü\u2028"}', mapped_list = '[{"from": "x", "n": 1.5}]'
			WHERE sort = 1`},
		{sql: `UPDATE scene_contents SET default_value = $1, font_id = NULL, max_size = NULL WHERE sort = 2`, args: []any{long}},
		{sql: `UPDATE scene_contents SET max_size = -7, font_size = 2147483647, direction_layer_value = -2147483648 WHERE sort = 3`},
		{sql: `UPDATE scenes SET title = E'Szene \u00fc "1"', localized_title = '{"de": "Szene", "en": ""}' WHERE sort = 3`},
		{sql: `UPDATE scenes SET localized_title = 'null', snapshot_url = $1, min_duration_sec = '1e-300' WHERE sort = 4`, args: []any{long}},
		{sql: `UPDATE scenes SET localized_title = '{"en": "tab\tescaped"}', max_duration_sec = '1e300' WHERE sort = 5`},
		{sql: `UPDATE scene_colors SET title = '日本', icon = '', default_color = $1 WHERE sort = 1`, args: []any{long}},
		{sql: `UPDATE scene_color_presets SET name = E'Nacht \\ "ü"', items = '[{"value": "a \"b\"", "sort": 1}]' WHERE sort = 1`},
		{sql: `UPDATE scene_characters SET icon = '', name = $1`, args: []any{long}},
		{sql: `UPDATE scene_character_controllers SET options = '[]', default_value = '日本' WHERE sort = 2`},
		{sql: `UPDATE repeater_items SET title = '', max_repeat_count = -1`},
	} {
		if _, err := pool.Exec(ctx, stmt.sql, stmt.args...); err != nil {
			t.Fatal(err)
		}
	}
	s := New(pool)
	p, _, err := s.GetProject(ctx, info.ProjectID)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("hand-scanned reads", func(t *testing.T) {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			q := contentdb.New(tx)
			contentRows, err := q.ListContentsByProject(ctx, p.ID)
			if err != nil {
				return err
			}
			wantContents, err := contentsFrom(contentRows)
			if err != nil {
				return err
			}
			colorRows, err := q.ListColorsByProject(ctx, p.ID)
			if err != nil {
				return err
			}
			wantColors := colorsFrom(colorRows)
			sceneRows, err := q.ListScenesByProject(ctx, p.ID)
			if err != nil {
				return err
			}
			wantRows := map[string]any{}
			if wantRows["presets"], err = q.ListColorPresetsByProject(ctx, p.ID); err != nil {
				return err
			}
			if wantRows["characters"], err = q.ListCharactersByProject(ctx, p.ID); err != nil {
				return err
			}
			if wantRows["controllers"], err = q.ListSceneCharacterControllersByProject(ctx, p.ID); err != nil {
				return err
			}
			if wantRows["repeaters"], err = q.ListRepeatersByProject(ctx, p.ID); err != nil {
				return err
			}
			wantScenes := make([]domain.Scene, len(sceneRows))
			for i, r := range sceneRows {
				if wantScenes[i], err = sceneFrom(r); err != nil {
					return err
				}
			}
			for _, viaPipeline := range []bool{false, true} {
				var contents []domain.ContentElement
				var colors []domain.ColorElement
				var scenes []domain.Scene
				rowReads := map[string]any{}
				read := func(db contentdb.DBTX) error {
					st := &Store{pool: pool, db: db, q: contentdb.New(db), inTx: true}
					var err error
					if rowReads["presets"], err = st.colorPresetRowsByProject(ctx, p.ID); err != nil {
						return err
					}
					if rowReads["characters"], err = st.characterRowsByProject(ctx, p.ID); err != nil {
						return err
					}
					if rowReads["controllers"], err = st.controllerRowsByProject(ctx, p.ID); err != nil {
						return err
					}
					if rowReads["repeaters"], err = st.repeaterRowsByProject(ctx, p.ID); err != nil {
						return err
					}
					if contents, err = st.listContentsByProject(ctx, p.ID); err != nil {
						return err
					}
					if colors, err = st.listColorsByProject(ctx, p.ID); err != nil {
						return err
					}
					scenes, err = st.listScenesByProject(ctx, p.ID)
					return err
				}
				if viaPipeline {
					err = pipelined(ctx, tx, read)
				} else {
					err = read(tx)
				}
				if err != nil {
					return err
				}
				if len(contents) != 800 || !reflect.DeepEqual(contents, wantContents) {
					t.Errorf("pipelined %v: %d content elements differ from the generated query's %d", viaPipeline, len(contents), len(wantContents))
				}
				if len(colors) != 200 || !reflect.DeepEqual(colors, wantColors) {
					t.Errorf("pipelined %v: %d colour elements differ from the generated query's %d", viaPipeline, len(colors), len(wantColors))
				}
				if len(scenes) != 40 || !reflect.DeepEqual(scenes, wantScenes) {
					t.Errorf("pipelined %v: %d scenes differ from the generated query's %d", viaPipeline, len(scenes), len(wantScenes))
				}
				for name, got := range rowReads {
					if !reflect.DeepEqual(got, wantRows[name]) {
						t.Errorf("pipelined %v: %s differ from the generated query's", viaPipeline, name)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("pipelined aggregate", func(t *testing.T) {
		pipelined, err := s.ProjectFull(ctx, p, true)
		if err != nil {
			t.Fatal(err)
		}
		var plain domain.ProjectFull
		err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			plain, err = (&Store{pool: pool, db: tx, q: contentdb.New(tx), inTx: true}).ProjectFull(ctx, p, true)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(pipelined.Scenes) != 40 || len(pipelined.Scenes[0].Contents) != 20 {
			t.Fatalf("%d scenes", len(pipelined.Scenes))
		}
		if !reflect.DeepEqual(pipelined, plain) {
			t.Errorf("the pipelined read differs from the plain one")
		}
	})
}

func TestEveryHandScannedReadHasItsGeneratedQuery(t *testing.T) {
	for i, sql := range []string{listContentsByProjectSQL, listColorsByProjectSQL, listScenesByProjectSQL,
		listColorPresetsByProjectSQL, listCharactersByProjectSQL, listSceneCharacterControllersByProjectSQL,
		listRepeatersByProjectSQL} {
		if !strings.Contains(sql, "WHERE project_id = $1") {
			t.Errorf("read %d: SQL %q", i, sql)
		}
	}
	var c domain.ColorElement
	if _, err := scanEach(context.Background(), nil, "", nil, nil, &colorRows, &c); err == nil {
		t.Error("a read without SQL ran")
	}
}

func TestAHandScannedReadRefusesColumnsItDoesNotExpect(t *testing.T) {
	pool := storePool(t)
	var c domain.ColorElement
	_, err := scanEach(context.Background(), pool, "SELECT $1::text AS title, 'y'::text AS icon", "x", []string{"icon", "title"}, &colorRows, &c, &c.Title, &c.Icon)
	if err == nil || !strings.Contains(err.Error(), "columns [title icon]") {
		t.Fatalf("got %v, want the columns named", err)
	}
}
