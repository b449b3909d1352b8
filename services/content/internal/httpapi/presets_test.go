package httpapi_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

func TestPresetStories(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("tpl")
	other := ev.publishedProject("other")
	a, b, c := ev.scene(project, "a"), ev.scene(project, "b"), ev.scene(project, "c")
	foreign := ev.scene(other, "x")
	music := uuid.New()
	if _, err := ev.pool.Exec(ctx(t), "INSERT INTO music_tracks (id, name, url) VALUES ($1, 'Theme', 'https://x/theme.mp3')", music); err != nil {
		t.Fatal(err)
	}

	r, err := ev.c.CreatePresetStoryWithResponse(ctx(t), project, nil, content.PresetStoryCreate{Name: "Short cut", MusicId: &music,
		SceneIds: &[]uuid.UUID{c.Id, a.Id, c.Id}}, ev.admin)
	want(t, r, err, 201)
	st := r.JSON201
	if st.SceneCount != 3 || !st.IsPublished || st.ProjectId != project || *st.MusicId != music || st.Sort != 1 {
		t.Errorf("story %+v", st)
	}
	t.Run("the full story lists its scenes in story order", func(t *testing.T) {
		g, err := ev.c.GetPresetStoryWithResponse(ctx(t), st.Id, ev.user)
		want(t, g, err, 200)
		var got []uuid.UUID
		var pos []int
		for _, s := range g.JSON200.Scenes {
			got = append(got, s.Id)
			pos = append(pos, s.SortInStory)
		}
		if !slices.Equal(got, []uuid.UUID{c.Id, a.Id, c.Id}) || !slices.Equal(pos, []int{1, 2, 3}) {
			t.Errorf("scenes %v at %v", got, pos)
		}
	})
	for name, tc := range map[string]struct {
		body   content.PresetStoryCreate
		caller content.RequestEditorFn
		status int
		field  string
	}{
		"a scene of another project is 400 naming its position": {content.PresetStoryCreate{Name: "x", SceneIds: &[]uuid.UUID{a.Id, foreign.Id}}, ev.admin, 400, "body.scene_ids[1]"},
		"an unknown scene is 400":                               {content.PresetStoryCreate{Name: "x", SceneIds: &[]uuid.UUID{uuid.New()}}, ev.admin, 400, "body.scene_ids[0]"},
		"an unknown music track is 400":                         {content.PresetStoryCreate{Name: "x", MusicId: ptr(uuid.New())}, ev.admin, 400, "body.music_id"},
		"a user may not create stories":                         {content.PresetStoryCreate{Name: "x"}, ev.user, 403, ""},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := ev.c.CreatePresetStoryWithResponse(ctx(t), project, nil, tc.body, tc.caller)
			want(t, r, err, tc.status)
			if tc.field != "" && !slices.Contains(problemFields(r.ApplicationproblemJSON400), tc.field) {
				t.Errorf("fields %v, want %s", problemFields(r.ApplicationproblemJSON400), tc.field)
			}
		})
	}
	t.Run("stories are listed by sort; non-admins see published ones", func(t *testing.T) {
		second, err := ev.c.CreatePresetStoryWithResponse(ctx(t), project, nil, content.PresetStoryCreate{Name: "Empty"}, ev.admin)
		want(t, second, err, 201)
		if _, err := ev.pool.Exec(ctx(t), "UPDATE preset_stories SET is_published = false WHERE id = $1", second.JSON201.Id); err != nil {
			t.Fatal(err)
		}
		l, err := ev.c.ListPresetStoriesWithResponse(ctx(t), project, ev.user)
		want(t, l, err, 200)
		if len(l.JSON200.Data) != 1 || l.JSON200.Data[0].Id != st.Id {
			t.Errorf("user sees %+v", l.JSON200.Data)
		}
		l, err = ev.c.ListPresetStoriesWithResponse(ctx(t), project, ev.admin)
		want(t, l, err, 200)
		if len(l.JSON200.Data) != 2 || l.JSON200.Data[1].SceneCount != 0 {
			t.Errorf("admin sees %+v", l.JSON200.Data)
		}
		g, err := ev.c.GetPresetStoryWithResponse(ctx(t), second.JSON201.Id, ev.user)
		want(t, g, err, 404)
	})
	t.Run("a deleted scene leaves the story", func(t *testing.T) {
		d, err := ev.c.DeleteSceneWithResponse(ctx(t), a.Id, ev.admin)
		want(t, d, err, 204)
		g, err := ev.c.GetPresetStoryWithResponse(ctx(t), st.Id, ev.user)
		want(t, g, err, 200)
		if g.JSON200.SceneCount != 2 || len(g.JSON200.Scenes) != 2 || g.JSON200.Scenes[1].SortInStory != 2 {
			t.Errorf("after delete %+v", g.JSON200)
		}
		_ = b
	})
	t.Run("an absent story is 404", func(t *testing.T) {
		g, err := ev.c.GetPresetStoryWithResponse(ctx(t), uuid.New(), ev.user)
		want(t, g, err, 404)
	})
}
