package main

import (
	"time"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// RunJobEnv configures the background jobs of executes answered at once (Prefer:
// respond-async).
type RunJobEnv struct {
	RunJobAttempts   int           `env:"RUN_JOB_ATTEMPTS" envDefault:"3" desc:"most model calls (each trying the fallback connection) a background execute makes for a run before the run fails; only 408, 429, 5xx and calls that got no answer in time are made again"`
	RunJobBackoff    time.Duration `env:"RUN_JOB_BACKOFF" envDefault:"2s" desc:"pause before a background execute calls the model again; it doubles before each further call up to RUN_JOB_MAX_BACKOFF"`
	RunJobMaxBackoff time.Duration `env:"RUN_JOB_MAX_BACKOFF" envDefault:"1m" desc:"longest pause between two model calls of a background execute"`
	RunJobLease      time.Duration `env:"RUN_JOB_LEASE" envDefault:"30s" desc:"how long a background execute's claim on a run holds unless renewed (it is renewed every third of it while the job works); after a crash, another instance takes the run over once it has run out"`
}

// RunJobPolicy is the policy of run jobs.
func (e RunJobEnv) RunJobPolicy() domain.RunJobPolicy {
	return domain.RunJobPolicy{Attempts: e.RunJobAttempts, Backoff: e.RunJobBackoff, MaxBackoff: e.RunJobMaxBackoff, Lease: e.RunJobLease}
}
