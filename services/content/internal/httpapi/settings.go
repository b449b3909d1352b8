package httpapi

import (
	"context"

	"github.com/videotpl/platform/gen/content"
)

// GetSettings is GET /settings.
func (s *Server) GetSettings(ctx context.Context, _ content.GetSettingsRequestObject) (content.GetSettingsResponseObject, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := s.app.Settings(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make(content.GetSettings200JSONResponse, len(settings))
	for k, v := range settings {
		out[k] = v
	}
	return out, nil
}
