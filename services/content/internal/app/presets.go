package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListPresetStories lists the stories of a visible project; non-admins see published ones.
func (a *App) ListPresetStories(ctx context.Context, actor domain.Actor, projectID uuid.UUID) ([]domain.PresetStory, error) {
	if _, err := a.visibleProject(ctx, actor, projectID); err != nil {
		return nil, err
	}
	return a.store.ListPresetStories(ctx, projectID, actor.Admin)
}

// CreatePresetStory creates a published story of scenes of the project, in the given order
// (admin).
func (a *App) CreatePresetStory(ctx context.Context, actor domain.Actor, projectID uuid.UUID, f domain.PresetStoryFields) (domain.PresetStory, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.PresetStory{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.PresetStory{}, err
	}
	var st domain.PresetStory
	err = a.store.InTx(ctx, func(s domain.Store) error {
		if _, err := lockLiveProject(ctx, s, projectID); err != nil {
			return err
		}
		if f.MusicID != nil {
			ok, err := s.MusicTrackExists(ctx, *f.MusicID)
			if err != nil {
				return err
			}
			if !ok {
				return errs.InvalidFields(errs.Field("body.music_id", "is not an existing music track"))
			}
		}
		if len(f.SceneIDs) > 0 {
			found, err := s.ExistingSceneIDs(ctx, projectID, f.SceneIDs)
			if err != nil {
				return err
			}
			if err := domain.ScenesOfProject(f.SceneIDs, found); err != nil {
				return err
			}
		}
		sort, err := s.NextPresetStorySort(ctx, projectID)
		if err != nil {
			return err
		}
		if st, err = domain.NewPresetStory(id, projectID, f, sort, a.now()); err != nil {
			return err
		}
		return s.InsertPresetStory(ctx, st, f.SceneIDs)
	})
	if err != nil {
		return domain.PresetStory{}, err
	}
	return st, nil
}

// GetPresetStory reads a story with its ordered scenes; non-admins read published stories of
// visible projects only.
func (a *App) GetPresetStory(ctx context.Context, actor domain.Actor, id uuid.UUID) (domain.PresetStoryFull, error) {
	st, err := a.store.GetPresetStory(ctx, id)
	if err != nil {
		return domain.PresetStoryFull{}, err
	}
	if _, err := a.visibleProject(ctx, actor, st.ProjectID); err != nil {
		return domain.PresetStoryFull{}, domain.ErrPresetStoryNotFound
	}
	if !st.IsPublished && !actor.Admin {
		return domain.PresetStoryFull{}, domain.ErrPresetStoryNotFound
	}
	return st, nil
}
