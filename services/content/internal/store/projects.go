package store

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func projectFrom(r contentdb.Project) domain.Project {
	return domain.Project{
		ProjectSummary: domain.ProjectSummary{ID: r.ID, Name: r.Name, Aspect: r.Aspect,
			Resolution: r.Resolution, ChooseMode: r.ChooseMode, Image: r.Image,
			OriginalWidth: int(r.OriginalWidth), OriginalHeight: int(r.OriginalHeight),
			ProjectDurationSec: r.ProjectDurationSec},
		ContainerID: r.ContainerID, ProjectServerID: r.ProjectServerID, Description: r.Description,
		FullDemo: r.FullDemo, DownloadLink: r.DownloadLink, AepFileURL: r.AepFileUrl,
		AepFileMD5: r.AepFileMd5, AepFileSizeBytes: r.AepFileSizeBytes,
		MinDurationSec: r.MinDurationSec, MaxDurationSec: r.MaxDurationSec, FreeFPS: int(r.FreeFps),
		VipFactor: r.VipFactor, RenderAepComp: r.RenderAepComp, IsPublished: r.IsPublished,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// GetProject reads a project and what decides its visibility.
func (s *Store) GetProject(ctx context.Context, id uuid.UUID) (domain.Project, domain.Visibility, error) {
	r, err := s.q.GetProject(ctx, id)
	if err != nil {
		return domain.Project{}, domain.Visibility{}, translate(err, domain.ErrProjectNotFound)
	}
	return projectFrom(r.Project), domain.Visibility{ProjectPublished: r.Project.IsPublished,
		ContainerPublished: r.ContainerPublished, ContainerDeleted: r.ContainerDeleted}, nil
}

// GetProjectForUpdate reads and locks a project.
func (s *Store) GetProjectForUpdate(ctx context.Context, id uuid.UUID) (domain.Project, domain.Visibility, error) {
	r, err := s.q.GetProjectForUpdate(ctx, id)
	if err != nil {
		return domain.Project{}, domain.Visibility{}, translate(err, domain.ErrProjectNotFound)
	}
	return projectFrom(r.Project), domain.Visibility{ProjectPublished: r.Project.IsPublished,
		ContainerPublished: r.ContainerPublished, ContainerDeleted: r.ContainerDeleted}, nil
}

// InsertProject writes a new project.
func (s *Store) InsertProject(ctx context.Context, p domain.Project) error {
	return translate(s.q.InsertProject(ctx, contentdb.InsertProjectParams{
		ID: p.ID, ContainerID: p.ContainerID, ProjectServerID: p.ProjectServerID, Name: p.Name,
		Aspect: p.Aspect, Resolution: p.Resolution, ChooseMode: p.ChooseMode, Image: p.Image,
		OriginalWidth: i32(p.OriginalWidth), OriginalHeight: i32(p.OriginalHeight),
		ProjectDurationSec: p.ProjectDurationSec, Description: p.Description, FullDemo: p.FullDemo,
		DownloadLink: p.DownloadLink, MinDurationSec: p.MinDurationSec, MaxDurationSec: p.MaxDurationSec,
		FreeFps: i32(p.FreeFPS), VipFactor: p.VipFactor, RenderAepComp: p.RenderAepComp,
		IsPublished: p.IsPublished, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}), nil)
}

// UpdateProject writes the writable fields of a project.
func (s *Store) UpdateProject(ctx context.Context, p domain.Project) error {
	return translate(s.q.UpdateProject(ctx, contentdb.UpdateProjectParams{
		ID: p.ID, ContainerID: p.ContainerID, ProjectServerID: p.ProjectServerID, Name: p.Name,
		Aspect: p.Aspect, Resolution: p.Resolution, ChooseMode: p.ChooseMode,
		OriginalWidth: i32(p.OriginalWidth), OriginalHeight: i32(p.OriginalHeight),
		ProjectDurationSec: p.ProjectDurationSec, MinDurationSec: p.MinDurationSec,
		MaxDurationSec: p.MaxDurationSec, FreeFps: i32(p.FreeFPS), VipFactor: p.VipFactor,
		RenderAepComp: p.RenderAepComp, UpdatedAt: p.UpdatedAt,
	}), nil)
}

// DeleteProject removes a project with everything that hangs from it.
func (s *Store) DeleteProject(ctx context.Context, id uuid.UUID) error {
	n, err := s.q.DeleteProject(ctx, id)
	if err != nil {
		return err
	}
	if n == 0 {
		return domain.ErrProjectNotFound
	}
	return nil
}

// ProjectFull reads the aggregate of p with one query per child table (eleven, whatever the
// size of the project), all in one read-only snapshot so a concurrent edit is seen whole or
// not at all (never elements of a scene that another read no longer has).
func (s *Store) ProjectFull(ctx context.Context, p domain.Project, includeUnpublishedStories bool) (domain.ProjectFull, error) {
	if s.inTx {
		return s.projectFull(ctx, p, includeUnpublishedStories)
	}
	// The snapshot begins with the reads: BEGIN travels in their round trip (pgxdb.Begin).
	tx, err := pgxdb.Begin(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return domain.ProjectFull{}, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to undo, and Commit below reports errors
	// The eleven reads are independent: one round trip carries them all.
	var full domain.ProjectFull
	err = pipelined(ctx, tx, func(db contentdb.DBTX) error {
		var err error
		full, err = (&Store{pool: s.pool, db: db, q: contentdb.New(db), inTx: true}).projectFull(ctx, p, includeUnpublishedStories)
		return err
	})
	if errors.Is(err, errPipelineMismatch) {
		full, err = (&Store{pool: s.pool, db: tx, q: contentdb.New(tx), inTx: true}).projectFull(ctx, p, includeUnpublishedStories)
	}
	if err != nil {
		return domain.ProjectFull{}, err
	}
	return full, tx.Commit(ctx)
}

func (s *Store) projectFull(ctx context.Context, p domain.Project, includeUnpublishedStories bool) (domain.ProjectFull, error) {
	id := p.ID
	scenes, err := s.ListScenes(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	contents, err := s.listContentsByProject(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	colors, err := s.listColorsByProject(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	presetRows, err := s.colorPresetRowsByProject(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	presets, err := colorPresetsFrom(presetRows)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	characterRows, err := s.characterRowsByProject(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	controllerRows, err := s.controllerRowsByProject(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	controllers, err := sceneControllersFrom(controllerRows)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	repeaterRows, err := s.repeaterRowsByProject(ctx, id)
	if err != nil {
		return domain.ProjectFull{}, err
	}
	full := domain.ProjectFull{Project: p}
	full.Scenes = domain.GroupByScene(scenes, contents, colors, presets,
		charactersFrom(characterRows), controllers, repeatersFrom(repeaterRows))
	if full.SharedColors, err = s.ListSharedColors(ctx, id); err != nil {
		return domain.ProjectFull{}, err
	}
	if full.SharedLayers, err = s.ListSharedLayers(ctx, id); err != nil {
		return domain.ProjectFull{}, err
	}
	if full.CharacterControllers, err = s.listCharacterControllers(ctx, id); err != nil {
		return domain.ProjectFull{}, err
	}
	if full.CharacterPresets, err = s.listCharacterPresets(ctx, id); err != nil {
		return domain.ProjectFull{}, err
	}
	if full.PresetStories, err = s.ListPresetStories(ctx, id, includeUnpublishedStories); err != nil {
		return domain.ProjectFull{}, err
	}
	return full, nil
}

func (s *Store) listCharacterControllers(ctx context.Context, projectID uuid.UUID) ([]domain.CharacterController, error) {
	rows, err := s.q.ListCharacterControllers(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]domain.CharacterController, len(rows))
	for i, r := range rows {
		c := domain.CharacterController{ID: r.ID, Name: r.Name, Key: r.Key, Sort: int(r.Sort), Options: []map[string]any{}}
		if err := decode(r.Options, &c.Options); err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func (s *Store) listCharacterPresets(ctx context.Context, projectID uuid.UUID) ([]domain.CharacterPreset, error) {
	rows, err := s.q.ListCharacterPresets(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]domain.CharacterPreset, len(rows))
	for i, r := range rows {
		c := domain.CharacterPreset{ID: r.ID, Key: r.Key, Name: r.Name, Icon: r.Icon, Sort: int(r.Sort),
			Controllers: []domain.CharacterPresetValue{}}
		if err := decode(r.Controllers, &c.Controllers); err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// ListSharedLayers lists a project's shared layers by sort.
func (s *Store) ListSharedLayers(ctx context.Context, projectID uuid.UUID) ([]domain.SharedLayer, error) {
	rows, err := s.q.ListSharedLayers(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]domain.SharedLayer, len(rows))
	for i, r := range rows {
		out[i] = domain.SharedLayer{ID: r.ID, ProjectID: r.ProjectID, Key: r.Key, Title: r.Title,
			Type: r.Type, DefaultValue: r.DefaultValue, FontFace: r.FontFace, Justify: r.Justify,
			FontSize: int(r.FontSize), PositionInContainer: int(r.PositionInContainer),
			IsTextBox: r.IsTextBox, Sort: int(r.Sort)}
	}
	return out, nil
}

// InsertSharedLayer writes a new shared layer.
func (s *Store) InsertSharedLayer(ctx context.Context, l domain.SharedLayer) error {
	return translate(s.q.InsertSharedLayer(ctx, contentdb.InsertSharedLayerParams{
		ID: l.ID, ProjectID: l.ProjectID, Key: l.Key, Title: l.Title, Type: l.Type,
		DefaultValue: l.DefaultValue, FontFace: l.FontFace, Justify: l.Justify,
		FontSize: i32(l.FontSize), PositionInContainer: i32(l.PositionInContainer),
		IsTextBox: l.IsTextBox, Sort: i32(l.Sort),
	}), nil)
}

// ListSharedColors lists a project's shared colours by sort.
func (s *Store) ListSharedColors(ctx context.Context, projectID uuid.UUID) ([]domain.SharedColor, error) {
	rows, err := s.q.ListSharedColors(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]domain.SharedColor, len(rows))
	for i, r := range rows {
		out[i] = domain.SharedColor{ID: r.ID, ProjectID: r.ProjectID, ElementKey: r.ElementKey,
			Title: r.Title, Icon: r.Icon, AttrValue: r.AttrValue, DefaultColor: r.DefaultColor, Sort: int(r.Sort)}
	}
	return out, nil
}
