package domain_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/events"
	"github.com/videotpl/platform/services/renderevents/internal/busapi"
	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

var (
	tenant  = uuid.MustParse("0190d6b2-4c1e-7a3b-9f21-000000000001")
	user    = uuid.MustParse("0190d6b2-4c1e-7a3b-9f21-000000000002")
	payment = uuid.MustParse("0190d6b2-4c1e-7a3b-9f21-000000000003")
	nodeA   = uuid.MustParse("0190d6b2-4c1e-7a3b-9f21-00000000000a")
	nodeB   = uuid.MustParse("0190d6b2-4c1e-7a3b-9f21-00000000000b")
	t0      = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
)

func event(t *testing.T, p events.Payload, at time.Time) domain.Event {
	t.Helper()
	env, err := events.NewEvent(tenant, p)
	if err != nil {
		t.Fatalf("new event: %v", err)
	}
	env.EventTime = at
	u, c := user, payment
	env.UserID, env.CorrelationID = &u, &c
	body, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := busapi.ParseEvent(body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return ev
}

func ptr[T any](v T) *T { return &v }

func lifecycle(t *testing.T, job uuid.UUID) (queued, started, completed domain.Event) {
	queued = event(t, events.RenderJobQueuedV1Payload{
		RenderJobID: job, SavedProjectID: uuid.New(), PriorityQueue: events.PriorityQueuePaid,
		PriceType: events.PriceTypeCash, Region: "eu", PaidPriceMinor: ptr(int64(1999)), Resolution: ptr("1080p"),
		DurationSec: ptr(30.0),
	}, t0)
	started = event(t, events.RenderJobStartedV1Payload{
		RenderJobID: job, StartedAt: t0.Add(time.Second), NodeIDs: []uuid.UUID{nodeA}, Region: ptr("eu-west"), TotalFrames: ptr(900),
	}, t0.Add(time.Second))
	completed = event(t, events.RenderJobCompletedV1Payload{
		RenderJobID: job, ExportID: uuid.New(), OutputURL: "s3://out/x.mp4", DurationSec: 30, SizeBytes: 1 << 20,
		NodeIDsUsed: []uuid.UUID{nodeA, nodeB}, RenderComputeSeconds: ptr(120),
	}, t0.Add(time.Minute))
	return
}

func fold(t *testing.T, job uuid.UUID, evs ...domain.Event) (*domain.Job, []domain.Outcome) {
	t.Helper()
	j := domain.NewJob(job, evs[0].TenantID, evs[0].Time)
	seen := map[uuid.UUID]bool{}
	var outs []domain.Outcome
	for _, ev := range evs {
		if seen[ev.ID] { // the inbox drops redeliveries before the job sees them
			continue
		}
		seen[ev.ID] = true
		out, err := j.Apply(ev)
		if err != nil {
			t.Fatalf("apply %s: %v", ev.Type, err)
		}
		outs = append(outs, out)
	}
	return j, outs
}

func permutations(evs []domain.Event) [][]domain.Event {
	if len(evs) <= 1 {
		return [][]domain.Event{evs}
	}
	var out [][]domain.Event
	for i := range evs {
		rest := append(append([]domain.Event{}, evs[:i]...), evs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]domain.Event{evs[i]}, p...))
		}
	}
	return out
}

func TestEveryDeliveryOrderGivesTheSameJob(t *testing.T) {
	id := uuid.New()
	q, s, c := lifecycle(t, id)
	want, _ := fold(t, id, q, s, c)
	if want.State != domain.StateCompleted || want.StartedAt == nil || len(want.NodeIDs) != 2 || want.Progress != 100 {
		t.Fatalf("in-order job is wrong: %+v", want)
	}
	for _, order := range permutations([]domain.Event{q, s, c, s, q}) {
		got, _ := fold(t, id, order...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("order %v gives\n%+v\nwant\n%+v", types(order), got, want)
		}
	}
}

func TestALateStartedAfterCompletedIsNotAppliedAndKeepsTheTerminalState(t *testing.T) {
	id := uuid.New()
	q, s, c := lifecycle(t, id)
	j, outs := fold(t, id, q, c, s)
	if got := []bool{outs[0].Applied, outs[1].Applied, outs[2].Applied}; !reflect.DeepEqual(got, []bool{true, true, false}) {
		t.Fatalf("applied flags = %v, want [true true false]", got)
	}
	if j.State != domain.StateCompleted || *j.Step != "Done" || j.Progress != 100 {
		t.Fatalf("late started moved the job: state=%s step=%v progress=%d", j.State, *j.Step, j.Progress)
	}
	if j.StartedAt == nil || !j.StartedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("started_at = %v, want the late started's started_at", j.StartedAt)
	}
	if !reflect.DeepEqual(j.NodeIDs, []uuid.UUID{nodeA, nodeB}) {
		t.Errorf("node_ids = %v, want the completed event's list", j.NodeIDs)
	}
}

func TestTheFirstTerminalEventWinsAndASecondOneChangesNothing(t *testing.T) {
	id := uuid.New()
	q, _, c := lifecycle(t, id)
	failed := event(t, events.RenderJobFailedV1Payload{RenderJobID: id, FailedAtStep: events.StepMixing, ErrorMessage: "boom", RefundRequired: true}, t0.Add(2*time.Minute))
	j, outs := fold(t, id, q, c, failed)
	if !outs[1].Terminal || outs[2].Applied || outs[2].Terminal {
		t.Fatalf("outcomes = %+v, want completed terminal and failed ignored", outs)
	}
	if j.State != domain.StateCompleted || j.Error != nil || j.RefundRequired != nil {
		t.Fatalf("second terminal changed the job: %+v", j)
	}
	if !j.FinishedAt.Equal(c.Time) || *j.TerminalEventID != c.ID {
		t.Errorf("finished_at %v terminal %v, want the completed event's", j.FinishedAt, j.TerminalEventID)
	}
}

func TestFailedAndCancelledJobsCarryTheirStepAndRefundFlag(t *testing.T) {
	cases := []struct {
		name       string
		payload    func(id uuid.UUID) events.Payload
		wantState  domain.JobState
		wantStep   *string
		wantRefund bool
		wantProg   int
	}{
		{"failed defaults to a refund", func(id uuid.UUID) events.Payload {
			var p events.RenderJobFailedV1Payload
			_ = json.Unmarshal([]byte(`{"render_job_id":"`+id.String()+`","failed_at_step":"Video","error_message":"x"}`), &p)
			return p
		}, domain.StateFailed, ptr("Video"), true, 0},
		{"cancelled at a step value", func(id uuid.UUID) events.Payload {
			return events.RenderJobCancelledV1Payload{RenderJobID: id, CancelledByUserID: user, CancelledAtStep: ptr("Mixing"), ProgressWhenCancelled: ptr(40), RefundRequired: false}
		}, domain.StateCancelled, ptr("Mixing"), false, 40},
		{"cancelled at a free text step keeps the known step", func(id uuid.UUID) events.Payload {
			return events.RenderJobCancelledV1Payload{RenderJobID: id, CancelledByUserID: user, CancelledAtStep: ptr("waiting"), RefundRequired: true}
		}, domain.StateCancelled, ptr("Queued"), true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := uuid.New()
			q, _, _ := lifecycle(t, id)
			j, _ := fold(t, id, q, event(t, tc.payload(id), t0.Add(time.Minute)))
			if j.State != tc.wantState || *j.RefundRequired != tc.wantRefund || j.Progress != tc.wantProg {
				t.Fatalf("state=%s refund=%v progress=%d", j.State, *j.RefundRequired, j.Progress)
			}
			if !reflect.DeepEqual(j.Step, tc.wantStep) {
				t.Errorf("step = %v, want %v", deref(j.Step), deref(tc.wantStep))
			}
		})
	}
}

func TestAJobEventOfAnotherTenantIsRefused(t *testing.T) {
	id := uuid.New()
	q, s, _ := lifecycle(t, id)
	j, _ := fold(t, id, q)
	s.TenantID = uuid.New()
	if _, err := j.Apply(s); !errors.Is(err, domain.ErrTenantMismatch) {
		t.Fatalf("err = %v, want ErrTenantMismatch", err)
	}
}

func TestUsageCountsATerminalOnceUnderItsPriceType(t *testing.T) {
	id := uuid.New()
	q, s, c := lifecycle(t, id)
	d := domain.UsageDeltas{}
	j := domain.NewJob(id, tenant, q.Time)
	for _, ev := range []domain.Event{q, s, c} {
		out, _ := j.Apply(ev)
		if out.Terminal {
			d.CountTerminal(ev, j)
		}
	}
	day := d[domain.UsageKey{TenantID: tenant, Period: domain.PeriodDay, Start: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}]
	month := d[domain.UsageKey{TenantID: tenant, Period: domain.PeriodMonth, Start: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}]
	if day == nil || month == nil {
		t.Fatalf("deltas = %v, want a day and a month", d)
	}
	want := domain.Usage{JobsCompleted: 1, RenderComputeSeconds: 120, OutputSeconds: 30, OutputBytes: 1 << 20,
		PaidMinorByPriceType: map[string]int64{"Cash": 1999}}
	if !reflect.DeepEqual(*day, want) || !reflect.DeepEqual(*month, want) {
		t.Errorf("day %+v month %+v, want %+v", *day, *month, want)
	}
}

func types(evs []domain.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
