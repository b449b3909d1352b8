package httpapi

import (
	"context"
	"errors"
	"io"
	"mime"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// bodyUploads serves the single-request AEP upload from the request body itself, read by a
// formReader: the strict handler would hand it mime/multipart's reader, which copies the file
// through a 4 KiB buffer. Every other operation goes to the strict handler.
type bodyUploads struct {
	contentserver.ServerInterface
	s *Server
}

// UploadProjectAep is PUT /projects/{project_id}/aep.
func (h bodyUploads) UploadProjectAep(c echo.Context, projectID content.ProjectId) error {
	req := c.Request()
	_, params, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" { // refused before already, by the contract's middleware
		return errs.InvalidFields(errs.Field("header.Content-Type", "a multipart body needs a boundary parameter"))
	}
	f, err := h.s.uploadAep(req.Context(), projectID, nextPartOf(newFormReader(req.Body, params["boundary"]).NextPart))
	if err != nil {
		return err
	}
	return aepUploaded(f).VisitUploadProjectAepResponse(c.Response())
}

// UploadProjectAep is PUT /projects/{project_id}/aep for the strict interface, over
// mime/multipart's reader; the route is served by bodyUploads.
func (s *Server) UploadProjectAep(ctx context.Context, req contentserver.UploadProjectAepRequestObject) (contentserver.UploadProjectAepResponseObject, error) {
	f, err := s.uploadAep(ctx, req.ProjectId, nextPartOf(req.Body.NextPart))
	if err != nil {
		return nil, err
	}
	return aepUploaded(f), nil
}

func aepUploaded(f domain.AepFile) contentserver.UploadProjectAep200JSONResponse {
	return contentserver.UploadProjectAep200JSONResponse{AepFileUrl: f.URL, AepFileMd5: f.MD5, AepFileSizeBytes: f.Size}
}

// formField is a part of a multipart/form-data body, as the upload reads it.
type formField interface {
	io.Reader
	FormName() string
	FileName() string
}

// nextPartOf is a reader's NextPart returning formFields.
func nextPartOf[P formField](next func() (P, error)) func() (formField, error) {
	return func() (formField, error) {
		p, err := next()
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// uploadAep streams the file part to object storage as it arrives (never parsed into memory
// or a temporary file).
func (s *Server) uploadAep(ctx context.Context, projectID uuid.UUID, nextPart func() (formField, error)) (domain.AepFile, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return domain.AepFile{}, err
	}
	for {
		part, err := nextPart()
		if errors.Is(err, io.EOF) {
			return domain.AepFile{}, errs.InvalidFields(errs.Field("body.file", "is required"))
		}
		if err != nil {
			return domain.AepFile{}, bodyError(err)
		}
		if name := part.FormName(); name != "file" {
			if err := httpx.CheckFormPart(ctx, name); err != nil {
				return domain.AepFile{}, err
			}
			continue // NextPart skips what is left of it
		}
		return s.app.UploadAep(ctx, actor, projectID, part.FileName(), partReader{part})
	}
}

// StartProjectAepUpload is POST /projects/{project_id}/aep/start-upload.
func (s *Server) StartProjectAepUpload(ctx context.Context, req contentserver.StartProjectAepUploadRequestObject) (contentserver.StartProjectAepUploadResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errs.InvalidFields(errs.Field("body", "is required"))
	}
	up, err := s.app.StartAepUpload(ctx, actor, req.ProjectId, req.Body.Filename, req.Body.TotalSizeBytes)
	if err != nil {
		return nil, err
	}
	return contentserver.StartProjectAepUpload201JSONResponse{
		UploadId: up.UploadID, Bucket: up.Bucket, Key: up.Key, ChunkSizeBytes: int(up.ChunkSize),
		PartUrls: mapAll(up.Parts, func(p app.PartURL) content.AepPartUrl {
			return content.AepPartUrl{PartNumber: int(p.Number), Url: p.URL}
		}),
	}, nil
}

// CompleteProjectAepUpload is POST /projects/{project_id}/aep/complete-upload.
func (s *Server) CompleteProjectAepUpload(ctx context.Context, req contentserver.CompleteProjectAepUploadRequestObject) (contentserver.CompleteProjectAepUploadResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errs.InvalidFields(errs.Field("body", "is required"))
	}
	parts := mapAll(req.Body.Parts, func(p content.AepCompletedPart) domain.CompletedPart {
		return domain.CompletedPart{Number: int32(p.PartNumber), ETag: p.Etag} //nolint:gosec // bounded 1..10000 by the spec
	})
	f, err := s.app.CompleteAepUpload(ctx, actor, req.ProjectId, req.Body.UploadId, parts)
	if err != nil {
		return nil, err
	}
	return contentserver.CompleteProjectAepUpload200JSONResponse{AepFileMd5: f.MD5, AepFileSizeBytes: f.Size}, nil
}
