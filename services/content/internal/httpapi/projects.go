package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func projectSummaryOut(p domain.ProjectSummary) content.ProjectSummary {
	return content.ProjectSummary{Id: p.ID, Name: p.Name, Aspect: p.Aspect, Resolution: p.Resolution,
		ChooseMode: p.ChooseMode, Image: p.Image, OriginalWidth: p.OriginalWidth,
		OriginalHeight: p.OriginalHeight, ProjectDurationSec: p.ProjectDurationSec}
}

func projectOut(p domain.Project) content.Project {
	return content.Project{Id: p.ID, Name: p.Name, Aspect: p.Aspect, Resolution: p.Resolution,
		ChooseMode: p.ChooseMode, Image: p.Image, OriginalWidth: p.OriginalWidth,
		OriginalHeight: p.OriginalHeight, ProjectDurationSec: p.ProjectDurationSec,
		ContainerId: p.ContainerID, ProjectServerId: p.ProjectServerID, Description: p.Description,
		FullDemo: p.FullDemo, DownloadLink: p.DownloadLink, AepFileUrl: p.AepFileURL,
		AepFileMd5: p.AepFileMD5, AepFileSizeBytes: p.AepFileSizeBytes,
		MinDurationSec: p.MinDurationSec, MaxDurationSec: p.MaxDurationSec, FreeFps: p.FreeFPS,
		VipFactor: p.VipFactor, RenderAepComp: p.RenderAepComp, IsPublished: p.IsPublished}
}

func sharedLayerOut(l domain.SharedLayer) content.SharedLayer {
	return content.SharedLayer{Id: ptr(l.ID), ProjectId: ptr(l.ProjectID), Key: ptr(l.Key), Title: ptr(l.Title),
		Type: ptr(l.Type), DefaultValue: ptr(l.DefaultValue), FontFace: ptr(l.FontFace),
		Justify: ptr(l.Justify), FontSize: ptr(l.FontSize), PositionInContainer: ptr(l.PositionInContainer),
		IsTextBox: ptr(l.IsTextBox), Sort: ptr(l.Sort)}
}

func sharedColorOut(c domain.SharedColor) content.SharedColor {
	return content.SharedColor{Id: c.ID, ProjectId: c.ProjectID, ElementKey: c.ElementKey, Title: c.Title,
		Icon: c.Icon, AttrValue: c.AttrValue, DefaultColor: c.DefaultColor, Sort: c.Sort}
}

func projectFields(f content.ProjectUpdate) domain.ProjectFields {
	return domain.ProjectFields{ContainerID: f.ContainerId, Name: f.Name, OriginalWidth: f.OriginalWidth,
		OriginalHeight: f.OriginalHeight, ProjectDurationSec: f.ProjectDurationSec, ChooseMode: f.ChooseMode,
		Aspect: f.Aspect, Resolution: f.Resolution, RenderAepComp: f.RenderAepComp,
		MinDurationSec: f.MinDurationSec, MaxDurationSec: f.MaxDurationSec, FreeFPS: f.FreeFps,
		VipFactor: f.VipFactor, ProjectServerID: f.ProjectServerId}
}

// CreateProject is POST /projects.
func (s *Server) CreateProject(ctx context.Context, r contentserver.CreateProjectRequestObject) (contentserver.CreateProjectResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	p, err := s.app.CreateProject(ctx, a, projectFields(content.ProjectUpdate{ContainerId: &b.ContainerId,
		Name: &b.Name, OriginalWidth: &b.OriginalWidth, OriginalHeight: &b.OriginalHeight,
		ProjectDurationSec: &b.ProjectDurationSec, ChooseMode: &b.ChooseMode, Aspect: b.Aspect,
		Resolution: b.Resolution, RenderAepComp: b.RenderAepComp, MinDurationSec: b.MinDurationSec,
		MaxDurationSec: b.MaxDurationSec, FreeFps: b.FreeFps, VipFactor: b.VipFactor,
		ProjectServerId: b.ProjectServerId}))
	if err != nil {
		return nil, err
	}
	return contentserver.CreateProject201JSONResponse(projectOut(p)), nil
}

// GetProject is GET /projects/{project_id}.
func (s *Server) GetProject(ctx context.Context, r contentserver.GetProjectRequestObject) (contentserver.GetProjectResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetProject(ctx, a, r.ProjectId)
	if err != nil {
		return nil, err
	}
	return contentserver.GetProject200JSONResponse(projectOut(p)), nil
}

// UpdateProject is PATCH /projects/{project_id}.
func (s *Server) UpdateProject(ctx context.Context, r contentserver.UpdateProjectRequestObject) (contentserver.UpdateProjectResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.UpdateProject(ctx, a, r.ProjectId, projectFields(*r.Body))
	if err != nil {
		return nil, err
	}
	return contentserver.UpdateProject200JSONResponse(projectOut(p)), nil
}

// DeleteProject is DELETE /projects/{project_id}.
func (s *Server) DeleteProject(ctx context.Context, r contentserver.DeleteProjectRequestObject) (contentserver.DeleteProjectResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteProject(ctx, a, r.ProjectId); err != nil {
		return nil, err
	}
	return contentserver.DeleteProject204Response{}, nil
}

// GetProjectFull is GET /projects/{project_id}/full.
func (s *Server) GetProjectFull(ctx context.Context, r contentserver.GetProjectFullRequestObject) (contentserver.GetProjectFullResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.app.GetProjectFull(ctx, a, r.ProjectId)
	if err != nil {
		return nil, err
	}
	return projectFullJSON{full: f}, nil
}

// ListSharedLayers is GET /projects/{project_id}/shared-layers.
func (s *Server) ListSharedLayers(ctx context.Context, r contentserver.ListSharedLayersRequestObject) (contentserver.ListSharedLayersResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := s.app.ListSharedLayers(ctx, a, r.ProjectId)
	if err != nil {
		return nil, err
	}
	return contentserver.ListSharedLayers200JSONResponse{Data: mapAll(ls, sharedLayerOut)}, nil
}

// CreateSharedLayer is POST /projects/{project_id}/shared-layers.
func (s *Server) CreateSharedLayer(ctx context.Context, r contentserver.CreateSharedLayerRequestObject) (contentserver.CreateSharedLayerResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	l, err := s.app.CreateSharedLayer(ctx, a, r.ProjectId, domain.SharedLayerFields{Key: b.Key, Title: b.Title,
		Type: b.Type, DefaultValue: b.DefaultValue, FontFace: b.FontFace, Justify: b.Justify,
		FontSize: b.FontSize, PositionInContainer: b.PositionInContainer, IsTextBox: b.IsTextBox, Sort: b.Sort})
	if err != nil {
		return nil, err
	}
	return contentserver.CreateSharedLayer201JSONResponse(sharedLayerOut(l)), nil
}

// ListSharedColors is GET /projects/{project_id}/shared-colors.
func (s *Server) ListSharedColors(ctx context.Context, r contentserver.ListSharedColorsRequestObject) (contentserver.ListSharedColorsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := s.app.ListSharedColors(ctx, a, r.ProjectId)
	if err != nil {
		return nil, err
	}
	return contentserver.ListSharedColors200JSONResponse{Data: mapAll(cs, sharedColorOut)}, nil
}
