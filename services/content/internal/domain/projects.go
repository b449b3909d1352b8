package domain

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// Visibility is what decides whether a project (and what hangs from it) can be read.
type Visibility struct {
	ProjectPublished   bool
	ContainerPublished bool
	ContainerDeleted   bool
}

// VisibleTo reports whether a can read the project: nobody reads under a deleted container;
// non-admins read published projects of published containers only.
func (v Visibility) VisibleTo(a Actor) bool {
	if v.ContainerDeleted {
		return false
	}
	return a.Admin || (v.ContainerPublished && v.ProjectPublished)
}

// ErrProjectNotFound answers every read of an absent or invisible project.
var ErrProjectNotFound = errs.E(errs.NotFound, "project not found")

// ProjectSummary is a project as listed under its template.
type ProjectSummary struct {
	ID                 uuid.UUID
	Name               string
	Aspect             string
	Resolution         string
	ChooseMode         string
	Image              string
	OriginalWidth      int
	OriginalHeight     int
	ProjectDurationSec float64
}

// Project is a variant of a template (e.g. one per aspect ratio) with its render settings.
type Project struct {
	ProjectSummary
	ContainerID      uuid.UUID
	ProjectServerID  *uuid.UUID
	Description      string
	FullDemo         string
	DownloadLink     string
	AepFileURL       *string
	AepFileMD5       *string
	AepFileSizeBytes *int64
	MinDurationSec   float64
	MaxDurationSec   float64
	FreeFPS          int
	VipFactor        float64
	RenderAepComp    string
	IsPublished      bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Project defaults where the creation leaves a field out.
const (
	DefaultFreeFPS   = 25
	DefaultVipFactor = 1.0
)

// ProjectFields are the writable fields of a project; nil means absent.
type ProjectFields struct {
	ContainerID        *uuid.UUID
	Name               *string
	OriginalWidth      *int
	OriginalHeight     *int
	ProjectDurationSec *float64
	ChooseMode         *string
	Aspect             *string
	Resolution         *string
	RenderAepComp      *string
	MinDurationSec     *float64
	MaxDurationSec     *float64
	FreeFPS            *int
	VipFactor          *float64
	ProjectServerID    *uuid.UUID
}

// NewProject builds a project from the creation fields. Projects are created published: their
// visibility follows their container's publication.
func NewProject(id uuid.UUID, f ProjectFields, now time.Time) (Project, error) {
	var missing []errs.FieldError
	req := func(name string, present bool) {
		if !present {
			missing = append(missing, errs.Field(name, "is required"))
		}
	}
	req("body.container_id", f.ContainerID != nil)
	req("body.name", f.Name != nil)
	req("body.original_width", f.OriginalWidth != nil)
	req("body.original_height", f.OriginalHeight != nil)
	req("body.project_duration_sec", f.ProjectDurationSec != nil)
	req("body.choose_mode", f.ChooseMode != nil)
	if len(missing) > 0 {
		return Project{}, errs.InvalidFields(missing...)
	}
	p := Project{ProjectSummary: ProjectSummary{ID: id}, FreeFPS: DefaultFreeFPS, VipFactor: DefaultVipFactor,
		IsPublished: true, CreatedAt: now}
	if err := p.Apply(f, now); err != nil {
		return Project{}, err
	}
	return p, nil
}

// Apply changes the fields f carries and checks the result.
func (p *Project) Apply(f ProjectFields, now time.Time) error {
	set(&p.ContainerID, f.ContainerID)
	set(&p.Name, f.Name)
	set(&p.OriginalWidth, f.OriginalWidth)
	set(&p.OriginalHeight, f.OriginalHeight)
	set(&p.ProjectDurationSec, f.ProjectDurationSec)
	set(&p.ChooseMode, f.ChooseMode)
	set(&p.Aspect, f.Aspect)
	set(&p.Resolution, f.Resolution)
	set(&p.RenderAepComp, f.RenderAepComp)
	set(&p.MinDurationSec, f.MinDurationSec)
	set(&p.MaxDurationSec, f.MaxDurationSec)
	set(&p.FreeFPS, f.FreeFPS)
	set(&p.VipFactor, f.VipFactor)
	if f.ProjectServerID != nil {
		id := *f.ProjectServerID
		p.ProjectServerID = &id
	}
	p.UpdatedAt = now
	var bad []errs.FieldError
	if strings.TrimSpace(p.Name) == "" {
		bad = append(bad, errs.Field("body.name", "must not be empty"))
	}
	if p.OriginalWidth < 1 {
		bad = append(bad, errs.Field("body.original_width", "must be at least 1"))
	}
	if p.OriginalHeight < 1 {
		bad = append(bad, errs.Field("body.original_height", "must be at least 1"))
	}
	if p.ProjectDurationSec < 0 || p.MinDurationSec < 0 || p.MaxDurationSec < 0 {
		bad = append(bad, errs.Field("body", "durations must not be negative"))
	}
	if p.MaxDurationSec > 0 && p.MinDurationSec > p.MaxDurationSec {
		bad = append(bad, errs.Field("body.min_duration_sec", "must not exceed max_duration_sec"))
	}
	if p.FreeFPS < 1 {
		bad = append(bad, errs.Field("body.free_fps", "must be at least 1"))
	}
	if p.VipFactor < 0 {
		bad = append(bad, errs.Field("body.vip_factor", "must not be negative"))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// ProjectFull is a project with every scene and element, its shared layers and colours, its
// character controllers and presets and its preset stories.
type ProjectFull struct {
	Project              Project
	Scenes               []SceneFull
	SharedColors         []SharedColor
	SharedLayers         []SharedLayer
	CharacterControllers []CharacterController
	CharacterPresets     []CharacterPreset
	PresetStories        []PresetStory
}

// SharedLayer is a layer shared by the scenes of a project.
type SharedLayer struct {
	ID                  uuid.UUID
	ProjectID           uuid.UUID
	Key                 string
	Title               string
	Type                string
	DefaultValue        string
	FontFace            string
	Justify             string
	FontSize            int
	PositionInContainer int
	IsTextBox           bool
	Sort                int
}

// SharedLayerFields are the writable fields of a shared layer.
type SharedLayerFields struct {
	Key                 *string
	Title               *string
	Type                *string
	DefaultValue        *string
	FontFace            *string
	Justify             *string
	FontSize            *int
	PositionInContainer *int
	IsTextBox           *bool
	Sort                *int
}

// NewSharedLayer builds a shared layer; the key is needed.
func NewSharedLayer(id, projectID uuid.UUID, f SharedLayerFields) (SharedLayer, error) {
	if f.Key == nil || strings.TrimSpace(*f.Key) == "" {
		return SharedLayer{}, errs.InvalidFields(errs.Field("body.key", "is required"))
	}
	l := SharedLayer{ID: id, ProjectID: projectID}
	set(&l.Key, f.Key)
	set(&l.Title, f.Title)
	set(&l.Type, f.Type)
	set(&l.DefaultValue, f.DefaultValue)
	set(&l.FontFace, f.FontFace)
	set(&l.Justify, f.Justify)
	set(&l.FontSize, f.FontSize)
	set(&l.PositionInContainer, f.PositionInContainer)
	set(&l.IsTextBox, f.IsTextBox)
	set(&l.Sort, f.Sort)
	return l, nil
}

// ErrLayerKeyTaken is the conflict of a shared layer key already used in the project.
var ErrLayerKeyTaken = errs.E(errs.Conflict, "the key is already used by a shared layer of the project")

// SharedColor is a colour shared by the scenes of a project.
type SharedColor struct {
	ID           uuid.UUID
	ProjectID    uuid.UUID
	ElementKey   string
	Title        string
	Icon         string
	AttrValue    string
	DefaultColor string
	Sort         int
}

// CharacterController is a project-level character controller; options are free-form objects.
type CharacterController struct {
	ID      uuid.UUID
	Name    string
	Key     string
	Sort    int
	Options []map[string]any
}

// CharacterPreset is a named set of controller values.
type CharacterPreset struct {
	ID          uuid.UUID
	Key         uuid.UUID
	Name        string
	Icon        string
	Sort        int
	Controllers []CharacterPresetValue
}

// CharacterPresetValue is one controller value of a preset.
type CharacterPresetValue struct {
	Name  string `json:"name"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ProjectStore keeps projects and what hangs from them at project level.
type ProjectStore interface {
	GetProject(ctx context.Context, id uuid.UUID) (Project, Visibility, error)
	GetProjectForUpdate(ctx context.Context, id uuid.UUID) (Project, Visibility, error)
	InsertProject(ctx context.Context, p Project) error
	UpdateProject(ctx context.Context, p Project) error
	DeleteProject(ctx context.Context, id uuid.UUID) error
	// ProjectFull reads the aggregate of p in a constant number of queries.
	ProjectFull(ctx context.Context, p Project, includeUnpublishedStories bool) (ProjectFull, error)
	ListSharedLayers(ctx context.Context, projectID uuid.UUID) ([]SharedLayer, error)
	InsertSharedLayer(ctx context.Context, l SharedLayer) error
	ListSharedColors(ctx context.Context, projectID uuid.UUID) ([]SharedColor, error)
}
