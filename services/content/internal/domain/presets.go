package domain

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// ErrPresetStoryNotFound answers every read of an absent or invisible preset story.
var ErrPresetStoryNotFound = errs.E(errs.NotFound, "preset story not found")

// PresetStory is an ordered scene selection of a project, with optional music.
type PresetStory struct {
	ID          uuid.UUID
	ProjectID   uuid.UUID
	Name        string
	Description string
	Demo        string
	MusicID     *uuid.UUID
	Sort        int
	IsPublished bool
	SceneCount  int
	CreatedAt   time.Time
}

// PresetStoryFields are the fields of a new preset story; SceneIDs is the ordered selection.
type PresetStoryFields struct {
	Name        string
	Description *string
	Demo        *string
	MusicID     *uuid.UUID
	SceneIDs    []uuid.UUID
}

// NewPresetStory builds a published story placed after the project's others (sort).
func NewPresetStory(id, projectID uuid.UUID, f PresetStoryFields, sort int, now time.Time) (PresetStory, error) {
	if strings.TrimSpace(f.Name) == "" {
		return PresetStory{}, errs.InvalidFields(errs.Field("body.name", "must not be empty"))
	}
	s := PresetStory{ID: id, ProjectID: projectID, Name: f.Name, MusicID: f.MusicID, Sort: sort,
		IsPublished: true, SceneCount: len(f.SceneIDs), CreatedAt: now}
	set(&s.Description, f.Description)
	set(&s.Demo, f.Demo)
	return s, nil
}

// ScenesOfProject names, as body.scene_ids[i], every selected id that is not a scene of the
// project (projectScenes are the selected ids that are).
func ScenesOfProject(selected, projectScenes []uuid.UUID) error {
	ok := make(map[uuid.UUID]bool, len(projectScenes))
	for _, id := range projectScenes {
		ok[id] = true
	}
	var bad []errs.FieldError
	for i, id := range selected {
		if !ok[id] {
			bad = append(bad, errs.Field(fmt.Sprintf("body.scene_ids[%d]", i), "is not a scene of the project"))
		}
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// PresetStoryFull is a story with its scenes in story order.
type PresetStoryFull struct {
	PresetStory
	Scenes []PresetStoryScene
}

// PresetStoryScene is a scene at its place in a story; DurationSec is its duration in the story.
type PresetStoryScene struct {
	Scene
	SortInStory int
	DurationSec float64
}

// PresetStoryStore keeps the preset stories of projects.
type PresetStoryStore interface {
	ListPresetStories(ctx context.Context, projectID uuid.UUID, includeUnpublished bool) ([]PresetStory, error)
	GetPresetStory(ctx context.Context, id uuid.UUID) (PresetStoryFull, error)
	NextPresetStorySort(ctx context.Context, projectID uuid.UUID) (int, error)
	InsertPresetStory(ctx context.Context, s PresetStory, sceneIDs []uuid.UUID) error
}
