package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListPresetStories lists a project's preset stories by sort, with their scene counts.
func (s *Store) ListPresetStories(ctx context.Context, projectID uuid.UUID, includeUnpublished bool) ([]domain.PresetStory, error) {
	rows, err := s.q.ListPresetStories(ctx, contentdb.ListPresetStoriesParams{ProjectID: projectID, IncludeUnpublished: includeUnpublished})
	if err != nil {
		return nil, err
	}
	out := make([]domain.PresetStory, len(rows))
	for i, r := range rows {
		out[i] = domain.PresetStory{ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Description: r.Description,
			Demo: r.Demo, MusicID: r.MusicID, Sort: int(r.Sort), IsPublished: r.IsPublished, SceneCount: int(r.SceneCount)}
	}
	return out, nil
}

// GetPresetStory reads a story with its scenes in story order.
func (s *Store) GetPresetStory(ctx context.Context, id uuid.UUID) (domain.PresetStoryFull, error) {
	r, err := s.q.GetPresetStory(ctx, id)
	if err != nil {
		return domain.PresetStoryFull{}, translate(err, domain.ErrPresetStoryNotFound)
	}
	full := domain.PresetStoryFull{PresetStory: domain.PresetStory{ID: r.ID, ProjectID: r.ProjectID,
		Name: r.Name, Description: r.Description, Demo: r.Demo, MusicID: r.MusicID, Sort: int(r.Sort),
		IsPublished: r.IsPublished, SceneCount: int(r.SceneCount)}}
	rows, err := s.q.ListPresetStoryScenes(ctx, id)
	if err != nil {
		return domain.PresetStoryFull{}, err
	}
	full.Scenes = make([]domain.PresetStoryScene, len(rows))
	for i, row := range rows {
		sc, err := sceneFrom(row.Scene)
		if err != nil {
			return domain.PresetStoryFull{}, err
		}
		full.Scenes[i] = domain.PresetStoryScene{Scene: sc, SortInStory: int(row.SortInStory), DurationSec: row.StoryDurationSec}
	}
	return full, nil
}

// NextPresetStorySort is the sort that puts a new story last.
func (s *Store) NextPresetStorySort(ctx context.Context, projectID uuid.UUID) (int, error) {
	n, err := s.q.NextPresetStorySort(ctx, projectID)
	return int(n), err
}

// InsertPresetStory writes a story and its ordered scenes.
func (s *Store) InsertPresetStory(ctx context.Context, st domain.PresetStory, sceneIDs []uuid.UUID) error {
	err := s.q.InsertPresetStory(ctx, contentdb.InsertPresetStoryParams{
		ID: st.ID, ProjectID: st.ProjectID, Name: st.Name, Description: st.Description, Demo: st.Demo,
		MusicID: st.MusicID, Sort: i32(st.Sort), IsPublished: st.IsPublished, CreatedAt: st.CreatedAt,
	})
	if err != nil {
		return translate(err, nil)
	}
	if len(sceneIDs) == 0 {
		return nil
	}
	return translate(s.q.InsertPresetStoryScenes(ctx, contentdb.InsertPresetStoryScenesParams{
		PresetStoryID: st.ID, ProjectID: st.ProjectID, SceneIds: sceneIDs,
	}), nil)
}
