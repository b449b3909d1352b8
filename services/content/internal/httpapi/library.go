package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func fontOut(f domain.Font) content.Font {
	return content.Font{Id: f.ID, Name: f.Name, OriginalName: f.OriginalName, SystemName: f.SystemName,
		Family: f.Family, Style: f.Style, Direction: f.Direction, FileUrl: f.FileURL,
		SampleImageUrl: f.SampleImageURL, Weight: f.Weight, IsPremium: f.IsPremium,
		InstalledOnNodes: f.InstalledOnNodes}
}

func musicOut(m domain.MusicTrack) content.MusicTrack {
	wave := m.WaveformData
	if wave == nil {
		wave = map[string]any{}
	}
	return content.MusicTrack{Id: ptr(m.ID), Name: ptr(m.Name), Caption: ptr(m.Caption), Keywords: ptr(m.Keywords),
		Url: ptr(m.URL), Genre: ptr(m.Genre), Mood: ptr(m.Mood), DurationSec: ptr(m.DurationSec), Bpm: ptr(m.BPM),
		IsPremium: ptr(m.IsPremium), WaveformData: &wave}
}

func value[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
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

// ListMusic is GET /music.
func (s *Server) ListMusic(ctx context.Context, r contentserver.ListMusicRequestObject) (contentserver.ListMusicResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	p := r.Params
	tracks, meta, err := s.app.ListMusic(ctx, a, domain.MusicQuery{Text: p.Q, Genre: p.Genre, Mood: p.Mood,
		MinDuration: p.MinDuration, MaxDuration: p.MaxDuration, Page: domain.NewPageRequest(p.Page, p.PageSize)})
	if err != nil {
		return nil, err
	}
	return contentserver.ListMusic200JSONResponse{Data: mapAll(tracks, musicOut), Meta: metaOut(meta)}, nil
}

// CreateMusicTrack is POST /music.
func (s *Server) CreateMusicTrack(ctx context.Context, r contentserver.CreateMusicTrackRequestObject) (contentserver.CreateMusicTrackResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	m := domain.MusicTrack{Name: value(b.Name), Caption: value(b.Caption), Keywords: value(b.Keywords),
		URL: value(b.Url), Genre: value(b.Genre), Mood: value(b.Mood), DurationSec: value(b.DurationSec),
		BPM: value(b.Bpm), IsPremium: value(b.IsPremium)}
	if b.WaveformData != nil {
		m.WaveformData = *b.WaveformData
	}
	m, err = s.app.CreateMusicTrack(ctx, a, m)
	if err != nil {
		return nil, err
	}
	return contentserver.CreateMusicTrack201JSONResponse(musicOut(m)), nil
}

// ListCategories is GET /categories.
func (s *Server) ListCategories(ctx context.Context, _ contentserver.ListCategoriesRequestObject) (contentserver.ListCategoriesResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := s.app.ListCategories(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListCategories200JSONResponse{Data: mapAll(cs, categoryOut)}, nil
}

// CreateCategory is POST /categories.
func (s *Server) CreateCategory(ctx context.Context, r contentserver.CreateCategoryRequestObject) (contentserver.CreateCategoryResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	c, err := s.app.CreateCategory(ctx, a, domain.Category{Slug: value(b.Slug), Name: value(b.Name),
		Description: value(b.Description), ImageURL: value(b.ImageUrl), Icon: value(b.Icon),
		ParentID: b.ParentId, Sort: value(b.Sort)})
	if err != nil {
		return nil, err
	}
	return contentserver.CreateCategory201JSONResponse(categoryOut(c)), nil
}

// ListTags is GET /tags.
func (s *Server) ListTags(ctx context.Context, _ contentserver.ListTagsRequestObject) (contentserver.ListTagsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	ts, err := s.app.ListTags(ctx, a)
	if err != nil {
		return nil, err
	}
	return contentserver.ListTags200JSONResponse{Data: mapAll(ts, tagOut)}, nil
}
