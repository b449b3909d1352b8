package httpapi_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/videotpl/platform/services/content/internal/store/seed"
)

// queryCounter counts the statements a pool runs.
type queryCounter struct{ n atomic.Int64 }

func (q *queryCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	q.n.Add(1)
	return ctx
}

func (q *queryCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// Statements sent together in a batch count one each, like any other.
func (q *queryCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (q *queryCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	q.n.Add(1)
}

func (q *queryCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// seededProject inserts a published project of the given shape.
func (ev *env) seededProject(slug string, shape seed.ProjectShape) uuid.UUID {
	ev.t.Helper()
	project := ev.publishedProject(slug)
	fonts := []uuid.UUID{uuid.New()}
	if _, err := ev.pool.Exec(ctx(ev.t), "INSERT INTO fonts (id, name) VALUES ($1, 'Roboto')", fonts[0]); err != nil {
		ev.t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := seed.InsertProjectContent(ctx(ev.t), ev.pool, rng, project, shape, fonts); err != nil {
		ev.t.Fatal(err)
	}
	return project
}

func TestProjectFullCostsTheSameQueriesWhateverItsSize(t *testing.T) {
	counter := &queryCounter{}
	ev := newEnv(t, withTracer(counter))

	small := ev.seededProject("small", seed.ProjectShape{Scenes: 2, ContentsPerScene: 1, ColorsPerScene: 1})
	big := ev.seededProject("big", seed.BigProject)

	cost := func(project uuid.UUID) (int64, int) {
		before := counter.n.Load()
		r, err := ev.c.GetProjectFullWithResponse(ctx(t), project, ev.user)
		want(t, r, err, 200)
		elements := 0
		for _, s := range r.JSON200.Scenes {
			elements += len(s.Contents) + len(s.Colors)
		}
		return counter.n.Load() - before, elements
	}
	smallQueries, smallElements := cost(small)
	bigQueries, bigElements := cost(big)
	if smallElements != 4 || bigElements != 40*25 {
		t.Fatalf("fixtures: %d and %d elements", smallElements, bigElements)
	}
	if smallQueries != bigQueries {
		t.Errorf("2 scenes cost %d queries, 40 x 25 cost %d: the aggregate must not read per row", smallQueries, bigQueries)
	}
	// The project, one read per child table, and BEGIN/COMMIT of the snapshot they share.
	if bigQueries > 15 {
		t.Errorf("ProjectFull ran %d statements, want at most 15 (the project, one per child table, begin and commit)", bigQueries)
	} else {
		t.Logf("ProjectFull ran %d statements for 2 scenes and for 40 x 25", bigQueries)
	}
}

func TestProjectFullAssemblesTheAggregate(t *testing.T) {
	ev := newEnv(t)
	project := ev.seededProject("big", seed.ProjectShape{Scenes: 3, ContentsPerScene: 4, ColorsPerScene: 2, Extras: true})
	r, err := ev.c.GetProjectFullWithResponse(ctx(t), project, ev.user)
	want(t, r, err, 200)
	f := r.JSON200
	if f.Project.Id != project || len(f.Scenes) != 3 {
		t.Fatalf("project %v with %d scenes", f.Project.Id, len(f.Scenes))
	}
	for i, s := range f.Scenes {
		if s.Sort != i+1 || len(s.Contents) != 4 || len(s.Colors) != 2 || len(s.ColorPresets) != 2 ||
			len(s.Characters) != 1 || len(s.Characters[0].Controllers) != 2 || len(s.Repeaters) != 1 {
			t.Errorf("scene %d: sort %d, %d contents, %d colours, %d presets, %d characters, %d repeaters", i, s.Sort,
				len(s.Contents), len(s.Colors), len(s.ColorPresets), len(s.Characters), len(s.Repeaters))
		}
		for _, c := range s.Contents {
			if *c.SceneId != s.Id {
				t.Errorf("content %s of scene %s sits in scene %s", *c.Key, *c.SceneId, s.Id)
			}
		}
	}
	if len(f.SharedLayers) != 4 || len(f.SharedColors) != 4 || len(f.CharacterControllers) != 3 ||
		len(f.CharacterPresets) != 2 || len(f.PresetStories) != 3 || f.PresetStories[0].SceneCount != 3 {
		t.Errorf("project level: %d layers, %d colours, %d controllers, %d presets, %d stories",
			len(f.SharedLayers), len(f.SharedColors), len(f.CharacterControllers), len(f.CharacterPresets), len(f.PresetStories))
	}
	g, err := ev.c.GetProjectFullWithResponse(ctx(t), uuid.New(), ev.user)
	want(t, g, err, 404)
	g, err = ev.c.GetProjectFullWithResponse(ctx(t), project, ev.anon)
	want(t, g, err, 401)
}

// BenchmarkProjectFull reads the 40 x 25 project through the whole stack (HTTP, auth,
// validation, store, JSON) on loopback.
func BenchmarkProjectFull(b *testing.B) {
	ev := newEnv(b)
	project := ev.seededProject("big", seed.BigProject)
	req, err := http.NewRequest(http.MethodGet, ev.base+"/v1/projects/"+project.String()+"/full", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+ev.auth.Token(b))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		b.SetBytes(n)
	}
}
