package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/videotpl/platform/gen/orgboard"
	"github.com/videotpl/platform/gen/orgboard/orgboardserver"
	"github.com/videotpl/platform/pkg/auth/authtest"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
	"github.com/videotpl/platform/pkg/egress"
	"github.com/videotpl/platform/pkg/httpx/httpxtest"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/pkg/seal"
	"github.com/videotpl/platform/services/orgboard/internal/app"
	"github.com/videotpl/platform/services/orgboard/internal/httpapi"
	"github.com/videotpl/platform/services/orgboard/internal/store"
	"github.com/videotpl/platform/services/orgboard/internal/store/mcp"
	"github.com/videotpl/platform/services/orgboard/internal/store/modelgw"
	"github.com/videotpl/platform/services/orgboard/migrations"
)

// suite is the one service every test of the package talks to, on one database. Each test
// builds its own organizations (world) and users, so tests do not see each other's records.
var suite struct {
	pool   *pgxpool.Pool
	app    *app.App
	base   string
	issuer *authtest.Issuer
	// logs and responses capture everything the service logs and answers, for tests that look
	// for leaked secrets.
	logs, responses *lockedBuffer
	spec            *openapi3.T
	// bus is the test topology on RabbitMQ the service's outbox is forwarded to, through
	// proxy (which a test may cut to play a broker outage).
	bus   bus.Config
	proxy *bustest.Proxy
}

// Service tokens: one with the admin scope, one without; set by TestMain.
var adminService, plainService caller

func TestMain(m *testing.M) {
	tb := &mainTB{}
	code := func() int {
		defer tb.cleanup()
		if err := tb.run(startSuite); err != nil {
			fmt.Fprintln(os.Stderr, "start the shared service:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// startSuite starts the shared service: real adapters, tool servers and model connections
// allowed on loopback (where the tests' stand-ins listen), the builtin profiles seeded.
func startSuite(tb testing.TB) {
	_, url := pgtest.NewDB(tb, migrations.Sets()...)
	// A pool opened as serve opens its own (binary uuids), so the tests run what it runs.
	pool, err := pgxdb.Open(context.Background(), url, pgxdb.BinaryUUIDs)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	suite.pool = pool
	suite.logs, suite.responses = &lockedBuffer{}, &lockedBuffer{}
	log := slog.New(slog.NewJSONHandler(suite.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	allowLoopback, err := egress.ParseAllowList("127.0.0.0/8")
	if err != nil {
		tb.Fatal(err)
	}
	suite.app = newApp(tb, pool, log, allowLoopback)
	if _, err := suite.app.SeedBuiltinProfiles(context.Background()); err != nil {
		tb.Fatal(err)
	}
	suite.issuer = authtest.New(tb)
	adminService = caller{name: "admin service", token: suite.issuer.ServiceToken(tb, "ops-console", "orgboard:admin")}
	plainService = caller{name: "plain service", token: suite.issuer.ServiceToken(tb, "reporting", "orgboard:read")}
	e, err := httpapi.NewHTTP(suite.app, httpapi.HTTPOptions{Auth: suite.issuer.Authenticator(tb), Logger: log, Ready: pool.Ping})
	if err != nil {
		tb.Fatal(err)
	}
	suite.base = httpxtest.Start(tb, e)
	if suite.spec, err = orgboardserver.GetSpec(); err != nil {
		tb.Fatal(err)
	}
	suite.proxy = bustest.NewProxy(tb)
	suite.bus = bustest.Config(tb)
	forwarded := suite.bus
	forwarded.AMQPURL = suite.proxy.URL()
	b, err := bus.Start(context.Background(), forwarded, pool, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = b.Stop() })
	startRunJobs(tb)
}

// mainTB is the testing.TB of TestMain, where no test runs yet: a failure ends the start with
// an error and cleanups run when the package's tests are done.
type mainTB struct {
	testing.TB
	cleanups []func()
}

type mainTBFailure struct{ msg string }

func (m *mainTB) Helper()                         {}
func (m *mainTB) Cleanup(f func())                { m.cleanups = append(m.cleanups, f) }
func (m *mainTB) Logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (m *mainTB) Fatal(args ...any)               { panic(mainTBFailure{fmt.Sprint(args...)}) }
func (m *mainTB) Fatalf(format string, args ...any) {
	panic(mainTBFailure{fmt.Sprintf(format, args...)})
}
func (m *mainTB) Errorf(format string, args ...any) {
	panic(mainTBFailure{fmt.Sprintf(format, args...)})
}

// run calls f, turning a Fatal into an error.
func (m *mainTB) run(f func(testing.TB)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			failure, ok := r.(mainTBFailure)
			if !ok {
				panic(r)
			}
			err = errors.New(failure.msg)
		}
	}()
	f(m)
	return nil
}

func (m *mainTB) cleanup() {
	for i := len(m.cleanups) - 1; i >= 0; i-- {
		m.cleanups[i]()
	}
}

// env is a test's view of the shared service: a client that validates every response against
// the spec and reports mismatches on the test.
type env struct {
	t         *testing.T
	pool      *pgxpool.Pool
	app       *app.App
	client    *orgboard.ClientWithResponses
	base      string // for requests the spec does not describe
	ctx       context.Context
	logs      *lockedBuffer
	responses *lockedBuffer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	doer := httpxtest.ValidatingDoer(t, suite.spec, recordingTransport{base: http.DefaultTransport, out: suite.responses})
	client, err := orgboard.NewClientWithResponses(suite.base, orgboard.WithHTTPClient(doer))
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, pool: suite.pool, app: suite.app, client: client, base: suite.base, ctx: context.Background(),
		logs: suite.logs, responses: suite.responses}
}

// newApp builds the application on pool with real adapters; policy decides which addresses
// tool servers and model connections may have.
func newApp(t testing.TB, pool *pgxpool.Pool, log *slog.Logger, policy *egress.Policy) *app.App {
	t.Helper()
	transport := policy.Transport()
	t.Cleanup(transport.CloseIdleConnections)
	return app.New(app.Deps{
		Store:  store.New(pool),
		Sealer: seal.Ephemeral(),
		Models: modelgw.New(&http.Client{Transport: transport}, 10*time.Second),
		Tools:  mcp.New(transport, "orgboard-test", "0"),
		URLs:   store.URLs(policy),
		Limits: app.Limits{ToolCall: 10 * time.Second, ToolTest: 10 * time.Second, Discovery: 10 * time.Second,
			RunClaim: time.Minute, RunJob: runJobPolicy},
		Logger:          log,
		Clock:           time.Now,
		DefaultTenantID: uuid.MustParse("00000000-0000-0000-0000-000000000001"),
	})
}

// lockedBuffer is a buffer many goroutines write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// recordingTransport copies every response body into out.
type recordingTransport struct {
	base http.RoundTripper
	out  io.Writer
}

func (r recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	_, _ = r.out.Write(append(body, '\n'))
	return resp, err
}

// caller is who sends a request: a user (JWT), a service token, or nobody.
type caller struct {
	name  string
	user  uuid.UUID
	token string
}

func (e *env) user(name string) caller {
	e.t.Helper()
	id, _ := uuid.NewV7()
	return caller{name: name, user: id, token: suite.issuer.Token(e.t, authtest.Subject(id))}
}

var anonymous = caller{name: "anonymous"}

// as is the request editor adding c's credentials.
func as(c caller) orgboard.RequestEditorFn {
	if c.token == "" {
		return func(context.Context, *http.Request) error { return nil }
	}
	return authtest.Bearer(c.token)
}

type statusCoder interface{ StatusCode() int }

// must fails the test unless the response has status want, and returns it.
func must[R statusCoder](t *testing.T, want int) func(R, error) R {
	return func(r R, err error) R {
		t.Helper()
		if err != nil {
			t.Fatalf("request failed: %v", err)
		}
		if r.StatusCode() != want {
			t.Fatalf("status %d, want %d: %s", r.StatusCode(), want, bodyOf(r))
		}
		return r
	}
}

// bodyOf is the raw body of a generated response (its Body field), for failure messages.
func bodyOf(r any) string {
	v := reflect.Indirect(reflect.ValueOf(r))
	if v.Kind() == reflect.Struct {
		if b := v.FieldByName("Body"); b.IsValid() {
			if raw, ok := b.Interface().([]byte); ok {
				return string(raw)
			}
		}
	}
	return fmt.Sprintf("%+v", r)
}

// world is two organizations built through the API. A: an Owner, a Member who leads team A1,
// a plain Member, a spare member; a division, a product (with an identity), teams A1 (under the
// product) and A2, an open seat and a work item in A1. B: its Owner (the "other organization"
// user), with the same kinds of records.
type world struct {
	ownerA, leadA, memberA, spareA, ownerB caller
	orgA, orgB                             orgboard.Organization
	divisionA, divisionB                   orgboard.Division
	productA, productB                     orgboard.Product
	teamA1, teamA2, teamB                  orgboard.Team
	seatA1                                 orgboard.Seat
	taskA1, taskA2, taskB                  orgboard.WorkItem
}

func (e *env) world() *world {
	e.t.Helper()
	t, c, ctx := e.t, e.client, e.ctx
	w := &world{ownerA: e.user("Owner"), leadA: e.user("Lead"), memberA: e.user("Member"),
		spareA: e.user("spare"), ownerB: e.user("other organization")}
	w.orgA = *must[*orgboard.CreateOrganizationResponse](t, 201)(c.CreateOrganizationWithResponse(ctx, nil, orgboard.OrganizationCreate{Name: "Acme"}, as(w.ownerA))).JSON201
	w.orgB = *must[*orgboard.CreateOrganizationResponse](t, 201)(c.CreateOrganizationWithResponse(ctx, nil, orgboard.OrganizationCreate{Name: "Globex"}, as(w.ownerB))).JSON201
	for _, m := range []caller{w.leadA, w.memberA, w.spareA} {
		e.join(w.ownerA, w.orgA.Id, m, orgboard.OrgRoleMember)
	}
	w.divisionA = e.division(w.ownerA, w.orgA.Id, "Studio")
	w.divisionB = e.division(w.ownerB, w.orgB.Id, "Studio")
	w.productA = e.product(w.ownerA, w.orgA.Id, &w.divisionA.Id, "Editor")
	w.productB = e.product(w.ownerB, w.orgB.Id, nil, "Portal")
	must[*orgboard.SetProductIdentityResponse](t, 200)(c.SetProductIdentityWithResponse(ctx, w.productA.Id, orgboard.ProductIdentityPut{Content: "# Editor\nbrief"}, as(w.ownerA)))
	w.teamA1 = e.team(w.ownerA, w.orgA.Id, &w.productA.Id, "A1")
	w.teamA2 = e.team(w.ownerA, w.orgA.Id, nil, "A2")
	w.teamB = e.team(w.ownerB, w.orgB.Id, nil, "B")
	must[*orgboard.SetTeamLeadResponse](t, 200)(c.SetTeamLeadWithResponse(ctx, w.teamA1.Id, w.leadA.user, as(w.ownerA)))
	w.seatA1 = *must[*orgboard.CreateSeatResponse](t, 201)(c.CreateSeatWithResponse(ctx, nil, orgboard.SeatCreate{TeamId: w.teamA1.Id, Title: "QA"}, as(w.leadA))).JSON201
	w.taskA1 = e.task(w.memberA, w.teamA1.Id, nil, "A1 task")
	w.taskA2 = e.task(w.ownerA, w.teamA2.Id, nil, "A2 task")
	w.taskB = e.task(w.ownerB, w.teamB.Id, nil, "B task")
	return w
}

// join invites m by user id as owner and accepts as m.
func (e *env) join(owner caller, org uuid.UUID, m caller, role orgboard.OrgRole) {
	e.t.Helper()
	inv := must[*orgboard.CreateInvitationResponse](e.t, 201)(e.client.CreateInvitationWithResponse(e.ctx, org,
		nil, orgboard.InvitationCreate{UserId: &m.user, Role: role}, as(owner))).JSON201
	must[*orgboard.AcceptInvitationResponse](e.t, 200)(e.client.AcceptInvitationWithResponse(e.ctx, inv.Id, orgboard.InvitationAccept{}, as(m)))
}

func (e *env) division(c caller, org uuid.UUID, name string) orgboard.Division {
	e.t.Helper()
	return *must[*orgboard.CreateDivisionResponse](e.t, 201)(e.client.CreateDivisionWithResponse(e.ctx,
		nil, orgboard.DivisionCreate{OrganizationId: org, Name: name}, as(c))).JSON201
}

func (e *env) product(c caller, org uuid.UUID, division *uuid.UUID, name string) orgboard.Product {
	e.t.Helper()
	return *must[*orgboard.CreateProductResponse](e.t, 201)(e.client.CreateProductWithResponse(e.ctx,
		nil, orgboard.ProductCreate{OrganizationId: org, DivisionId: division, Name: name, Kind: orgboard.ProductKindProduct}, as(c))).JSON201
}

func (e *env) team(c caller, org uuid.UUID, product *uuid.UUID, name string) orgboard.Team {
	e.t.Helper()
	return *must[*orgboard.CreateTeamResponse](e.t, 201)(e.client.CreateTeamWithResponse(e.ctx,
		nil, orgboard.TeamCreate{OrganizationId: org, ProductId: product, Name: name}, as(c))).JSON201
}

func (e *env) task(c caller, team uuid.UUID, parent *uuid.UUID, title string) orgboard.WorkItem {
	e.t.Helper()
	return *must[*orgboard.CreateTaskResponse](e.t, 201)(e.client.CreateTaskWithResponse(e.ctx,
		nil, orgboard.WorkItemCreate{TeamId: team, Type: orgboard.WorkItemTypeTask, Title: title, ParentId: parent}, as(c))).JSON201
}

// flipSeatToAI makes a seat ai with a stand-in agent id, without configuring an agent:
// replication mode skips the foreign keys.
func (e *env) flipSeatToAI(seat uuid.UUID) {
	e.t.Helper()
	tx, err := e.pool.Begin(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	defer tx.Rollback(e.ctx) //nolint:errcheck
	if _, err := tx.Exec(e.ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		e.t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, "UPDATE seats SET state = 'ai', user_id = NULL, agent_id = $2 WHERE id = $1", seat, uuid.New()); err != nil {
		e.t.Fatal(err)
	}
	if err := tx.Commit(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}
