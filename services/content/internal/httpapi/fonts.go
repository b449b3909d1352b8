package httpapi

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func fontOut(f domain.Font) content.Font {
	return content.Font{Id: f.ID, Name: f.Name, OriginalName: f.OriginalName, SystemName: f.SystemName,
		Family: f.Family, Style: f.Style, Direction: f.Direction, FileUrl: f.FileURL,
		SampleImageUrl: f.SampleImageURL, Weight: f.Weight, IsPremium: f.IsPremium,
		InstalledOnNodes: f.InstalledOnNodes}
}

// ListFonts is GET /fonts.
func (s *Server) ListFonts(ctx context.Context, _ contentserver.ListFontsRequestObject) (contentserver.ListFontsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	fonts, err := s.app.ListFonts(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListFonts200JSONResponse{Data: mapAll(fonts, fontOut)}, nil
}

// DeleteFont is DELETE /fonts/{font_id}.
func (s *Server) DeleteFont(ctx context.Context, r contentserver.DeleteFontRequestObject) (contentserver.DeleteFontResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteFont(ctx, a, r.FontId); err != nil {
		return nil, err
	}
	return contentserver.DeleteFont204Response{}, nil
}

// CreateFont is POST /fonts.
func (s *Server) CreateFont(ctx context.Context, req contentserver.CreateFontRequestObject) (contentserver.CreateFontResponseObject, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := actor.RequireAdmin(); err != nil {
		return nil, err
	}
	var in domain.FontUpload
	var haveFile bool
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		switch name := part.FormName(); name {
		case "file":
			data, err := io.ReadAll(io.LimitReader(partReader{part}, domain.MaxFontBytes+1))
			if err != nil {
				return nil, err
			}
			if len(data) > domain.MaxFontBytes {
				return nil, domain.ErrFontTooLarge
			}
			in.Data, in.Filename, haveFile = data, part.FileName(), true
		case "name", "family", "direction":
			v, err := formValue(ctx, part)
			if err != nil {
				return nil, err
			}
			switch name {
			case "name":
				in.Name = &v
			case "family":
				in.Family = &v
			default:
				in.Direction = &v
			}
		case "is_premium":
			v, err := formValue(ctx, part)
			if err != nil {
				return nil, err
			}
			if in.IsPremium, err = strconv.ParseBool(v); err != nil {
				return nil, errs.InvalidFields(errs.Field("body.is_premium", "must be true or false"))
			}
		default:
			if err := httpx.CheckFormPart(ctx, name); err != nil {
				return nil, err
			}
		}
	}
	if !haveFile {
		return nil, errs.InvalidFields(errs.Field("body.file", "is required"))
	}
	f, err := s.app.CreateFont(ctx, actor, in)
	if err != nil {
		return nil, err
	}
	return contentserver.CreateFont201JSONResponse{Id: f.ID, Name: f.Name, OriginalName: f.OriginalName,
		SystemName: f.SystemName, Family: f.Family, Style: f.Style, Direction: f.Direction, FileUrl: f.FileURL,
		SampleImageUrl: f.SampleImageURL, Weight: f.Weight, IsPremium: f.IsPremium, InstalledOnNodes: f.InstalledOnNodes}, nil
}
