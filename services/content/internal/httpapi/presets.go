package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func presetStoryOut(p domain.PresetStory) content.PresetStory {
	return content.PresetStory{Id: p.ID, ProjectId: p.ProjectID, Name: p.Name, Description: p.Description,
		Demo: p.Demo, MusicId: p.MusicID, Sort: p.Sort, IsPublished: p.IsPublished, SceneCount: p.SceneCount}
}

func presetStorySceneOut(s domain.PresetStoryScene) content.PresetStoryScene {
	return content.PresetStoryScene{Id: s.ID, ProjectId: s.ProjectID, Key: s.Key, Title: s.Title,
		SceneType: s.SceneType, Image: s.Image, Demo: s.Demo, SnapshotUrl: s.SnapshotURL,
		LocalizedTitle: localized(s.LocalizedTitle), DefaultDurationSec: s.DurationSec,
		MinDurationSec: s.MinDurationSec, MaxDurationSec: s.MaxDurationSec, OverlapAtEndSec: s.OverlapAtEndSec,
		ManualColorSelection: s.ManualColorSelection, Sort: s.Sort, SortInStory: s.SortInStory}
}

// ListPresetStories is GET /projects/{project_id}/preset-stories.
func (s *Server) ListPresetStories(ctx context.Context, r contentserver.ListPresetStoriesRequestObject) (contentserver.ListPresetStoriesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := s.app.ListPresetStories(ctx, a, r.ProjectId)
	if err != nil {
		return nil, err
	}
	return contentserver.ListPresetStories200JSONResponse{Data: mapAll(ps, presetStoryOut)}, nil
}

// CreatePresetStory is POST /projects/{project_id}/preset-stories.
func (s *Server) CreatePresetStory(ctx context.Context, r contentserver.CreatePresetStoryRequestObject) (contentserver.CreatePresetStoryResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	f := domain.PresetStoryFields{Name: b.Name, Description: b.Description, Demo: b.Demo, MusicID: b.MusicId}
	if b.SceneIds != nil {
		f.SceneIDs = *b.SceneIds
	}
	p, err := s.app.CreatePresetStory(ctx, a, r.ProjectId, f)
	if err != nil {
		return nil, err
	}
	return contentserver.CreatePresetStory201JSONResponse(presetStoryOut(p)), nil
}

// GetPresetStory is GET /preset-stories/{preset_story_id}.
func (s *Server) GetPresetStory(ctx context.Context, r contentserver.GetPresetStoryRequestObject) (contentserver.GetPresetStoryResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetPresetStory(ctx, a, r.PresetStoryId)
	if err != nil {
		return nil, err
	}
	b := presetStoryOut(p.PresetStory)
	return contentserver.GetPresetStory200JSONResponse{Id: b.Id, ProjectId: b.ProjectId, Name: b.Name,
		Description: b.Description, Demo: b.Demo, MusicId: b.MusicId, Sort: b.Sort, IsPublished: b.IsPublished,
		SceneCount: b.SceneCount, Scenes: mapAll(p.Scenes, presetStorySceneOut)}, nil
}
