package domain

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// ErrSceneNotFound answers every read of an absent or invisible scene.
var ErrSceneNotFound = errs.E(errs.NotFound, "scene not found")

// ErrSceneKeyTaken is the conflict of a scene key already used in the project.
var ErrSceneKeyTaken = errs.E(errs.Conflict, "the key is already used by a scene of the project")

// Scene is one scene of a project.
type Scene struct {
	ID                   uuid.UUID
	ProjectID            uuid.UUID
	Key                  string
	Title                string
	SceneType            string
	Image                string
	Demo                 string
	SnapshotURL          string
	LocalizedTitle       map[string]string
	DefaultDurationSec   float64
	MinDurationSec       float64
	MaxDurationSec       float64
	OverlapAtEndSec      float64
	ManualColorSelection bool
	Sort                 int
	CreatedAt            time.Time
}

// SceneFields are the writable fields of a scene: Key, Title, SceneType at creation;
// Title, DefaultDurationSec, Sort and ManualColorSelection in a patch.
type SceneFields struct {
	Key                  *string
	Title                *string
	SceneType            *string
	DefaultDurationSec   *float64
	Sort                 *int
	ManualColorSelection *bool
}

// NewScene builds a scene; sort is the position given, else nextSort (the scene goes last).
func NewScene(id, projectID uuid.UUID, f SceneFields, nextSort int, now time.Time) (Scene, error) {
	if f.Key == nil || strings.TrimSpace(*f.Key) == "" {
		return Scene{}, errs.InvalidFields(errs.Field("body.key", "is required"))
	}
	if f.Title == nil {
		return Scene{}, errs.InvalidFields(errs.Field("body.title", "is required"))
	}
	s := Scene{ID: id, ProjectID: projectID, Key: *f.Key, Sort: nextSort, LocalizedTitle: map[string]string{}, CreatedAt: now}
	set(&s.SceneType, f.SceneType)
	if err := s.Apply(f); err != nil {
		return Scene{}, err
	}
	return s, nil
}

// Apply changes the patchable fields f carries.
func (s *Scene) Apply(f SceneFields) error {
	set(&s.Title, f.Title)
	set(&s.DefaultDurationSec, f.DefaultDurationSec)
	set(&s.Sort, f.Sort)
	set(&s.ManualColorSelection, f.ManualColorSelection)
	if s.DefaultDurationSec < 0 {
		return errs.InvalidFields(errs.Field("body.default_duration_sec", "must not be negative"))
	}
	return nil
}

// CheckReorder verifies that ordered holds exactly the scene ids of the project (current), each
// once.
func CheckReorder(ordered, current []uuid.UUID) error {
	want := make(map[uuid.UUID]bool, len(current))
	for _, id := range current {
		want[id] = false
	}
	var bad []errs.FieldError
	for i, id := range ordered {
		seen, ok := want[id]
		switch {
		case !ok:
			bad = append(bad, errs.Field(fmt.Sprintf("body.ordered_ids[%d]", i), "is not a scene of the project"))
		case seen:
			bad = append(bad, errs.Field(fmt.Sprintf("body.ordered_ids[%d]", i), "appears more than once"))
		default:
			want[id] = true
		}
	}
	missing := 0
	for _, seen := range want {
		if !seen {
			missing++
		}
	}
	if missing > 0 {
		bad = append(bad, errs.Field("body.ordered_ids", fmt.Sprintf("misses %d scene(s) of the project: every scene must be listed once", missing)))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// SceneFull is a scene with its elements.
type SceneFull struct {
	Scene
	SceneElements
}

// GroupByScene distributes the project's elements to their scenes, keeping each list's order.
// Lists that come grouped by scene (each scene's elements in one run, as the store reads them)
// are shared, not copied: a scene's list is its run of the project's list.
func GroupByScene(scenes []Scene, contents []ContentElement, colors []ColorElement, presets []ColorPreset,
	characters []Character, controllers []SceneCharacterController, repeaters []Repeater) []SceneFull {
	byContents := runs(contents, func(e ContentElement) uuid.UUID { return e.SceneID })
	byColors := runs(colors, func(e ColorElement) uuid.UUID { return e.SceneID })
	byPresets := runs(presets, func(e ColorPreset) uuid.UUID { return e.SceneID })
	byRepeaters := runs(repeaters, func(e Repeater) uuid.UUID { return e.SceneID })
	byCharacters := runs(AttachControllers(characters, controllers), func(e Character) uuid.UUID { return e.SceneID })
	out := make([]SceneFull, len(scenes))
	for i, s := range scenes {
		out[i] = SceneFull{Scene: s, SceneElements: SceneElements{
			Contents: orEmpty(byContents[s.ID]), Colors: orEmpty(byColors[s.ID]),
			ColorPresets: orEmpty(byPresets[s.ID]), Characters: orEmpty(byCharacters[s.ID]),
			Repeaters: orEmpty(byRepeaters[s.ID])}}
	}
	return out
}

// runs splits items by key. When each key's items are contiguous the lists are subslices of
// items (capacity cut, so an append never writes into the next run); otherwise they are copies.
func runs[T any](items []T, key func(T) uuid.UUID) map[uuid.UUID][]T {
	out := make(map[uuid.UUID][]T)
	start := 0
	for i := 1; i <= len(items); i++ {
		if i < len(items) && key(items[i]) == key(items[start]) {
			continue
		}
		k := key(items[start])
		if prev, seen := out[k]; seen {
			// Not grouped: this key had an earlier run; join them in a copy.
			joined := make([]T, 0, len(prev)+i-start)
			out[k] = append(append(joined, prev...), items[start:i]...)
		} else {
			out[k] = items[start:i:i]
		}
		start = i
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// AttachControllers gives each character its controllers, keeping their order.
func AttachControllers(characters []Character, controllers []SceneCharacterController) []Character {
	at := make(map[uuid.UUID]int, len(characters))
	for i := range characters {
		characters[i].Controllers = []SceneCharacterController{}
		at[characters[i].ID] = i
	}
	for _, c := range controllers {
		if i, ok := at[c.CharacterID]; ok {
			characters[i].Controllers = append(characters[i].Controllers, c)
		}
	}
	return characters
}

// SceneStore keeps the scenes of projects.
type SceneStore interface {
	ListScenes(ctx context.Context, projectID uuid.UUID) ([]Scene, error)
	GetScene(ctx context.Context, id uuid.UUID) (Scene, Visibility, error)
	GetSceneForUpdate(ctx context.Context, id uuid.UUID) (Scene, error)
	NextSceneSort(ctx context.Context, projectID uuid.UUID) (int, error)
	InsertScene(ctx context.Context, s Scene) error
	UpdateScene(ctx context.Context, s Scene) error
	DeleteScene(ctx context.Context, id uuid.UUID) error
	// LockSceneIDs returns the project's scene ids, locked until the transaction ends.
	LockSceneIDs(ctx context.Context, projectID uuid.UUID) ([]uuid.UUID, error)
	SetSceneOrder(ctx context.Context, projectID uuid.UUID, ordered []uuid.UUID) error
	ExistingSceneIDs(ctx context.Context, projectID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error)
}
