package httpapi_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

func TestContentAndColorElements(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("tpl")
	scene := ev.scene(project, "intro")
	font := uuid.New()
	if _, err := ev.pool.Exec(ctx(t), "INSERT INTO fonts (id, name) VALUES ($1, 'Roboto')", font); err != nil {
		t.Fatal(err)
	}
	repeater := uuid.New()
	if _, err := ev.pool.Exec(ctx(t), "INSERT INTO repeater_items (id, scene_id, project_id, title, max_repeat_count) VALUES ($1, $2, $3, 'Gallery', 5)",
		repeater, scene.Id, project); err != nil {
		t.Fatal(err)
	}

	cr, err := ev.c.CreateSceneContentWithResponse(ctx(t), scene.Id, nil, content.SceneContentElement{Key: ptr("headline"), Type: ptr("text"),
		Title: ptr("Headline"), FontId: &font, FontSize: ptr(48), MaxSize: ptr(40), RepeaterItemId: &repeater,
		LocalizedTitle: &map[string]string{"de": "Schlagzeile"}, MappedList: &[]map[string]any{{"from": "a", "to": "b"}}}, ev.admin)
	want(t, cr, err, 201)
	el := cr.JSON201
	if *el.SceneId != scene.Id || *el.Key != "headline" || *el.FontId != font || *el.MaxSize != 40 ||
		(*el.LocalizedTitle)["de"] != "Schlagzeile" || len(*el.MappedList) != 1 || *el.IsHidden || *el.Sort != 0 {
		t.Errorf("created %+v", el)
	}

	t.Run("content creation errors", func(t *testing.T) {
		for name, tc := range map[string]struct {
			body   content.SceneContentElement
			scene  uuid.UUID
			caller content.RequestEditorFn
			status int
			field  string
		}{
			"a key taken in the scene is 409":      {content.SceneContentElement{Key: ptr("headline")}, scene.Id, ev.admin, 409, ""},
			"a missing key is 400":                 {content.SceneContentElement{Title: ptr("x")}, scene.Id, ev.admin, 400, "body.key"},
			"an unknown font is 400 naming it":     {content.SceneContentElement{Key: ptr("f"), FontId: ptr(uuid.New())}, scene.Id, ev.admin, 400, "body.font_id"},
			"an unknown repeater is 400 naming it": {content.SceneContentElement{Key: ptr("r"), RepeaterItemId: ptr(uuid.New())}, scene.Id, ev.admin, 400, "body.repeater_item_id"},
			"an absent scene is 404":               {content.SceneContentElement{Key: ptr("k")}, uuid.New(), ev.admin, 404, ""},
			"a user may not create elements":       {content.SceneContentElement{Key: ptr("u")}, scene.Id, ev.user, 403, ""},
		} {
			t.Run(name, func(t *testing.T) {
				r, err := ev.c.CreateSceneContentWithResponse(ctx(t), tc.scene, nil, tc.body, tc.caller)
				want(t, r, err, tc.status)
				if tc.field != "" && !slices.Contains(problemFields(r.ApplicationproblemJSON400), tc.field) {
					t.Errorf("fields %v, want %s", problemFields(r.ApplicationproblemJSON400), tc.field)
				}
			})
		}
	})
	t.Run("a content patch changes only what it carries", func(t *testing.T) {
		r, err := ev.c.UpdateSceneContentWithResponse(ctx(t), *el.Id, content.SceneContentElement{DefaultValue: ptr("Hello"), IsHidden: ptr(true)}, ev.admin)
		want(t, r, err, 200)
		u := r.JSON200
		if *u.DefaultValue != "Hello" || !*u.IsHidden || *u.Key != "headline" || *u.FontId != font || *u.FontSize != 48 {
			t.Errorf("patched %+v", u)
		}
		second, err := ev.c.CreateSceneContentWithResponse(ctx(t), scene.Id, nil, content.SceneContentElement{Key: ptr("subline")}, ev.admin)
		want(t, second, err, 201)
		r, err = ev.c.UpdateSceneContentWithResponse(ctx(t), *second.JSON201.Id, content.SceneContentElement{Key: ptr("headline")}, ev.admin)
		want(t, r, err, 409)
		r, err = ev.c.UpdateSceneContentWithResponse(ctx(t), uuid.New(), content.SceneContentElement{Key: ptr("x")}, ev.admin)
		want(t, r, err, 404)
	})

	colr, err := ev.c.CreateSceneColorWithResponse(ctx(t), scene.Id, nil, content.SceneColorElement{ElementKey: ptr("bg"), DefaultColor: ptr("#ff8800")}, ev.admin)
	want(t, colr, err, 201)
	color := colr.JSON201
	if *color.AttrValue != content.SceneColorElementAttrValueFill || *color.DefaultColor != "#ff8800" {
		t.Errorf("created colour %+v", color)
	}
	t.Run("colour errors", func(t *testing.T) {
		r, err := ev.c.CreateSceneColorWithResponse(ctx(t), scene.Id, nil, content.SceneColorElement{ElementKey: ptr("bg")}, ev.admin)
		want(t, r, err, 409)
		r, err = ev.c.CreateSceneColorWithResponse(ctx(t), scene.Id, nil, content.SceneColorElement{Title: ptr("no key")}, ev.admin)
		want(t, r, err, 400)
		raw, err := ev.c.CreateSceneColorWithBodyWithResponse(ctx(t), scene.Id, nil, "application/json",
			strings.NewReader(`{"element_key":"fg","attr_value":"glow"}`), ev.admin)
		want(t, raw, err, 400)
		if f := problemFields(raw.ApplicationproblemJSON400); !slices.Contains(f, "body.attr_value") {
			t.Errorf("fields %v", f)
		}
	})
	t.Run("a colour patch changes only what it carries", func(t *testing.T) {
		stroke := content.SceneColorElementAttrValueStroke
		r, err := ev.c.UpdateSceneColorWithResponse(ctx(t), *color.Id, content.SceneColorElement{AttrValue: &stroke}, ev.admin)
		want(t, r, err, 200)
		if *r.JSON200.AttrValue != stroke || *r.JSON200.ElementKey != "bg" || *r.JSON200.DefaultColor != "#ff8800" {
			t.Errorf("patched %+v", r.JSON200)
		}
		r, err = ev.c.UpdateSceneColorWithResponse(ctx(t), *color.Id, content.SceneColorElement{AttrValue: &stroke}, ev.user)
		want(t, r, err, 403)
	})
	t.Run("the elements of a scene", func(t *testing.T) {
		r, err := ev.c.GetSceneElementsWithResponse(ctx(t), scene.Id, ev.user)
		want(t, r, err, 200)
		e := r.JSON200
		if len(e.Contents) != 2 || len(e.Colors) != 1 || len(e.Repeaters) != 1 || len(e.Characters) != 0 {
			t.Errorf("elements %d contents %d colors %d repeaters %d characters", len(e.Contents), len(e.Colors), len(e.Repeaters), len(e.Characters))
		}
		s, err := ev.c.GetSceneWithResponse(ctx(t), scene.Id, ev.user)
		want(t, s, err, 200)
		if len(s.JSON200.Contents) != 2 || s.JSON200.Key != "intro" {
			t.Errorf("scene %+v", s.JSON200)
		}
	})
	t.Run("deleting a font keeps the element with its face and no font_id", func(t *testing.T) {
		d, err := ev.c.DeleteFontWithResponse(ctx(t), font, ev.admin)
		want(t, d, err, 204)
		r, err := ev.c.GetSceneElementsWithResponse(ctx(t), scene.Id, ev.user)
		want(t, r, err, 200)
		for _, c := range r.JSON200.Contents {
			if c.FontId != nil {
				t.Errorf("element %s still has font %v", *c.Key, *c.FontId)
			}
		}
	})
	t.Run("deleted elements are gone", func(t *testing.T) {
		d, err := ev.c.DeleteSceneContentWithResponse(ctx(t), *el.Id, ev.admin)
		want(t, d, err, 204)
		d, err = ev.c.DeleteSceneContentWithResponse(ctx(t), *el.Id, ev.admin)
		want(t, d, err, 404)
		dc, err := ev.c.DeleteSceneColorWithResponse(ctx(t), *color.Id, ev.user)
		want(t, dc, err, 403)
		dc, err = ev.c.DeleteSceneColorWithResponse(ctx(t), *color.Id, ev.admin)
		want(t, dc, err, 204)
		dc, err = ev.c.DeleteSceneColorWithResponse(ctx(t), *color.Id, ev.admin)
		want(t, dc, err, 404)
	})
	t.Run("an element id that is not JSON-clean in the body is 400", func(t *testing.T) {
		r, err := ev.c.CreateSceneContentWithBodyWithResponse(ctx(t), scene.Id, nil, "application/json", bytes.NewReader([]byte(`{"key":`)), ev.admin)
		want(t, r, err, 400)
	})
}

func TestSharedLayersAndColors(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("tpl")
	r, err := ev.c.CreateSharedLayerWithResponse(ctx(t), project, nil, content.SharedLayer{Key: ptr("logo"), Type: ptr("logo"), Sort: ptr(2)}, ev.admin)
	want(t, r, err, 201)
	if *r.JSON201.ProjectId != project || *r.JSON201.Key != "logo" || *r.JSON201.Title != "" {
		t.Errorf("layer %+v", r.JSON201)
	}
	r, err = ev.c.CreateSharedLayerWithResponse(ctx(t), project, nil, content.SharedLayer{Key: ptr("logo")}, ev.admin)
	want(t, r, err, 409)
	r, err = ev.c.CreateSharedLayerWithResponse(ctx(t), project, nil, content.SharedLayer{Title: ptr("keyless")}, ev.admin)
	want(t, r, err, 400)
	r, err = ev.c.CreateSharedLayerWithResponse(ctx(t), project, nil, content.SharedLayer{Key: ptr("u")}, ev.user)
	want(t, r, err, 403)
	r, err = ev.c.CreateSharedLayerWithResponse(ctx(t), uuid.New(), nil, content.SharedLayer{Key: ptr("x")}, ev.admin)
	want(t, r, err, 404)
	_, err = ev.c.CreateSharedLayerWithResponse(ctx(t), project, nil, content.SharedLayer{Key: ptr("title"), Sort: ptr(1)}, ev.admin)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ev.c.ListSharedLayersWithResponse(ctx(t), project, ev.user)
	want(t, l, err, 200)
	if len(l.JSON200.Data) != 2 || *l.JSON200.Data[0].Key != "title" {
		t.Errorf("layers by sort %+v", l.JSON200.Data)
	}
	if _, err := ev.pool.Exec(ctx(t), "INSERT INTO shared_colors (id, project_id, element_key, default_color) VALUES ($1, $2, 'brand', '#123456')", uuid.New(), project); err != nil {
		t.Fatal(err)
	}
	c, err := ev.c.ListSharedColorsWithResponse(ctx(t), project, ev.user)
	want(t, c, err, 200)
	if len(c.JSON200.Data) != 1 || c.JSON200.Data[0].DefaultColor != "#123456" || c.JSON200.Data[0].AttrValue != "fill" {
		t.Errorf("shared colours %+v", c.JSON200.Data)
	}
	c, err = ev.c.ListSharedColorsWithResponse(ctx(t), uuid.New(), ev.user)
	want(t, c, err, 404)
}
