package busapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// RunJobHandler executes the run of one RunJob command (app.HandleRunJob). An error wrapping
// domain.ErrRunJobGaveUp failed the run; any other error is retried with backoff, then
// dead-lettered.
type RunJobHandler func(ctx context.Context, job domain.RunJobData) error

// RunJobs decodes the run execution command and hands it to handle. A command whose data is
// not a run, and one whose run failed, go straight to the dead letters (a failed run is
// final: the dead letter keeps the command with the reason for whoever looks into it).
func RunJobs(handle RunJobHandler) bus.Handlers {
	return bus.Handlers{
		domain.RunJob: func(ctx context.Context, env events.EventEnvelope) error {
			var job domain.RunJobData
			if err := json.Unmarshal(env.Data, &job); err != nil || job.AgentRunID == uuid.Nil {
				return bus.Permanent(fmt.Errorf("%s: data is not {agent_run_id, actor_kind}: %s", domain.RunJob, env.Data))
			}
			err := handle(ctx, job)
			if errors.Is(err, domain.ErrRunJobGaveUp) {
				return bus.Permanent(err)
			}
			return err
		},
	}
}
