package busapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// PreviewJobHandler runs one preview generation command; jobID is the command's event id
// (the inbox key). A returned error is retried with backoff, then dead-lettered.
type PreviewJobHandler func(ctx context.Context, jobID uuid.UUID, job domain.PreviewJobData) error

// previewJobs decodes the preview generation command and hands it to handle; a command whose
// data is not a preview id goes straight to the dead letters.
func previewJobs(handle PreviewJobHandler) bus.Handlers {
	return bus.Handlers{
		domain.PreviewJob: func(ctx context.Context, env events.EventEnvelope) error {
			var job domain.PreviewJobData
			if err := json.Unmarshal(env.Data, &job); err != nil || job.SvgPreviewID == uuid.Nil {
				return bus.Permanent(fmt.Errorf("%s: data is not {svg_preview_id}: %s", domain.PreviewJob, env.Data))
			}
			return handle(ctx, env.EventID, job)
		},
	}
}
