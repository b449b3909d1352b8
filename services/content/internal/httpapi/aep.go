package httpapi

import (
	"context"
	"errors"
	"io"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// UploadProjectAep is PUT /projects/{project_id}/aep: the file part is streamed to object
// storage as it arrives (never parsed into memory or a temporary file).
func (s *Server) UploadProjectAep(ctx context.Context, req contentserver.UploadProjectAepRequestObject) (contentserver.UploadProjectAepResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errs.InvalidFields(errs.Field("body.file", "is required"))
		}
		if err != nil {
			return nil, bodyError(err)
		}
		if name := part.FormName(); name != "file" {
			if err := httpx.CheckFormPart(ctx, name); err != nil {
				return nil, err
			}
			continue // NextPart skips what is left of it
		}
		f, err := s.app.UploadAep(ctx, actor, req.ProjectId, part.FileName(), partReader{part})
		if err != nil {
			return nil, err
		}
		return contentserver.UploadProjectAep200JSONResponse{AepFileUrl: f.URL, AepFileMd5: f.MD5, AepFileSizeBytes: f.Size}, nil
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
