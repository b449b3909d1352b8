package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content/contentserver"
)

// GetSettings is GET /settings.
func (s *Server) GetSettings(ctx context.Context, _ contentserver.GetSettingsRequestObject) (contentserver.GetSettingsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := s.app.Settings(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make(contentserver.GetSettings200JSONResponse, len(settings))
	for k, v := range settings {
		out[k] = v
	}
	return out, nil
}
