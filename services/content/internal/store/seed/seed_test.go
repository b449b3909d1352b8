package seed_test

import (
	"context"
	"testing"
	"time"

	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/pkg/pgxdb/pgtest"
	"github.com/videotpl/platform/services/content/internal/store/seed"
	"github.com/videotpl/platform/services/content/migrations"
)

func TestBenchCatalogHasTheAskedShape(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, _ := pgtest.NewDB(t, pgxdb.Migrations{Name: "content", FS: migrations.FS})
	info, err := seed.Bench(ctx, pool, 50)
	if err != nil {
		t.Fatal(err)
	}
	var containers, projects, scenes, elements, tagged int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM containers), (SELECT count(*) FROM projects),
		(SELECT count(*) FROM scenes WHERE project_id = $1),
		(SELECT count(*) FROM scene_contents WHERE project_id = $1) + (SELECT count(*) FROM scene_colors WHERE project_id = $1),
		(SELECT count(*) FROM container_tags WHERE tag_id = $2)`, info.ProjectID, info.TagID).
		Scan(&containers, &projects, &scenes, &elements, &tagged); err != nil {
		t.Fatal(err)
	}
	if containers != 51 || projects != 151 || scenes != 40 || elements != 40*25 || tagged == 0 {
		t.Errorf("%d containers, %d projects, big project %d scenes %d elements, tag on %d", containers, projects, scenes, elements, tagged)
	}
	if info.Templates != 51 || info.Projects != 151 {
		t.Errorf("info %+v", info)
	}
}
