package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func localized(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func sceneOut(s domain.Scene) content.Scene {
	return content.Scene{Id: s.ID, ProjectId: s.ProjectID, Key: s.Key, Title: s.Title, SceneType: s.SceneType,
		Image: s.Image, Demo: s.Demo, SnapshotUrl: s.SnapshotURL, LocalizedTitle: localized(s.LocalizedTitle),
		DefaultDurationSec: s.DefaultDurationSec, MinDurationSec: s.MinDurationSec,
		MaxDurationSec: s.MaxDurationSec, OverlapAtEndSec: s.OverlapAtEndSec,
		ManualColorSelection: s.ManualColorSelection, Sort: s.Sort}
}

func sceneFullOut(s domain.SceneFull) content.SceneFull {
	b := sceneOut(s.Scene)
	return content.SceneFull{Id: b.Id, ProjectId: b.ProjectId, Key: b.Key, Title: b.Title, SceneType: b.SceneType,
		Image: b.Image, Demo: b.Demo, SnapshotUrl: b.SnapshotUrl, LocalizedTitle: b.LocalizedTitle,
		DefaultDurationSec: b.DefaultDurationSec, MinDurationSec: b.MinDurationSec,
		MaxDurationSec: b.MaxDurationSec, OverlapAtEndSec: b.OverlapAtEndSec,
		ManualColorSelection: b.ManualColorSelection, Sort: b.Sort,
		Contents: mapAll(s.Contents, contentOut), Colors: mapAll(s.Colors, colorOut),
		ColorPresets: mapAll(s.ColorPresets, colorPresetOut), Characters: mapAll(s.Characters, characterOut),
		Repeaters: mapAll(s.Repeaters, repeaterOut)}
}

// ListProjectScenes is GET /projects/{project_id}/scenes.
func (s *Server) ListProjectScenes(ctx context.Context, r contentserver.ListProjectScenesRequestObject) (contentserver.ListProjectScenesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	scenes, err := s.app.ListScenes(ctx, a, r.ProjectId)
	if err != nil {
		return nil, err
	}
	return contentserver.ListProjectScenes200JSONResponse{Data: mapAll(scenes, sceneOut)}, nil
}

// CreateScene is POST /projects/{project_id}/scenes.
func (s *Server) CreateScene(ctx context.Context, r contentserver.CreateSceneRequestObject) (contentserver.CreateSceneResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	sc, err := s.app.CreateScene(ctx, a, r.ProjectId, domain.SceneFields{Key: &b.Key, Title: &b.Title,
		SceneType: b.SceneType, DefaultDurationSec: b.DefaultDurationSec, Sort: b.Sort})
	if err != nil {
		return nil, err
	}
	return contentserver.CreateScene201JSONResponse(sceneOut(sc)), nil
}

// GetScene is GET /scenes/{scene_id}.
func (s *Server) GetScene(ctx context.Context, r contentserver.GetSceneRequestObject) (contentserver.GetSceneResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := s.app.GetScene(ctx, a, r.SceneId)
	if err != nil {
		return nil, err
	}
	return contentserver.GetScene200JSONResponse(sceneFullOut(sc)), nil
}

// UpdateScene is PATCH /scenes/{scene_id}.
func (s *Server) UpdateScene(ctx context.Context, r contentserver.UpdateSceneRequestObject) (contentserver.UpdateSceneResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	sc, err := s.app.UpdateScene(ctx, a, r.SceneId, domain.SceneFields{Title: b.Title,
		DefaultDurationSec: b.DefaultDurationSec, Sort: b.Sort, ManualColorSelection: b.ManualColorSelection})
	if err != nil {
		return nil, err
	}
	return contentserver.UpdateScene200JSONResponse(sceneOut(sc)), nil
}

// DeleteScene is DELETE /scenes/{scene_id}.
func (s *Server) DeleteScene(ctx context.Context, r contentserver.DeleteSceneRequestObject) (contentserver.DeleteSceneResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteScene(ctx, a, r.SceneId); err != nil {
		return nil, err
	}
	return contentserver.DeleteScene204Response{}, nil
}

// ReorderScenes is POST /scenes/{scene_id}/reorder.
func (s *Server) ReorderScenes(ctx context.Context, r contentserver.ReorderScenesRequestObject) (contentserver.ReorderScenesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.ReorderScenes(ctx, a, r.SceneId, r.Body.OrderedIds); err != nil {
		return nil, err
	}
	return contentserver.ReorderScenes204Response{}, nil
}
