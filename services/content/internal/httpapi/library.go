package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/gen/content/contentserver"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func musicOut(m domain.MusicTrack) content.MusicTrack {
	wave := m.WaveformData
	if wave == nil {
		wave = map[string]any{}
	}
	return content.MusicTrack{Id: ptr(m.ID), Name: ptr(m.Name), Caption: ptr(m.Caption), Keywords: ptr(m.Keywords),
		Url: ptr(m.URL), Genre: ptr(m.Genre), Mood: ptr(m.Mood), DurationSec: ptr(m.DurationSec), Bpm: ptr(m.BPM),
		IsPremium: ptr(m.IsPremium), WaveformData: &wave}
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
