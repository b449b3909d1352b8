package httpapi_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/videotpl/platform/gen/content"
)

// racers is how many clients each race test lets loose at once.
const racers = 20

// race runs call(i) for i in [0, racers) at once and returns the statuses (0 when the request
// itself failed).
func race(call func(i int) (response, error)) []int {
	statuses := make([]int, racers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if r, err := call(i); err == nil {
				statuses[i] = r.StatusCode()
			}
		}()
	}
	close(start)
	wg.Wait()
	return statuses
}

// allAre fails the test unless every status is one of want.
func allAre(t *testing.T, statuses []int, want ...int) {
	t.Helper()
	for i, s := range statuses {
		if !slices.Contains(want, s) {
			t.Fatalf("client %d got %d, want one of %v (all: %v)", i, s, want, statuses)
		}
	}
}

// rotated is ids turned left by n.
func rotated(ids []uuid.UUID, n int) []uuid.UUID {
	n %= len(ids)
	return append(slices.Clone(ids[n:]), ids[:n]...)
}

func TestConcurrentReordersOfOneProjectEndInOneOfTheSubmittedOrders(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("reorder-race")
	var ids []uuid.UUID
	for i := range 5 {
		ids = append(ids, ev.scene(project, fmt.Sprintf("s%d", i)).Id)
	}
	// Each client enters through another scene and submits another order: the shape that
	// made PostgreSQL report a deadlock when scenes were locked in the clients' orders.
	orders := make([][]uuid.UUID, racers)
	for i := range orders {
		orders[i] = rotated(ids, i)
		if i%2 == 1 {
			slices.Reverse(orders[i])
		}
	}
	statuses := race(func(i int) (response, error) {
		return ev.c.ReorderScenesWithResponse(ctx(t), ids[i%len(ids)], content.ReorderScenesRequest{OrderedIds: orders[i]}, ev.admin)
	})
	allAre(t, statuses, 204)

	l, err := ev.c.ListProjectScenesWithResponse(ctx(t), project, ev.user)
	want(t, l, err, 200)
	var got []uuid.UUID
	for i, s := range l.JSON200.Data {
		got = append(got, s.Id)
		if s.Sort != i+1 {
			t.Errorf("scene %d has sort %d: positions are not 1..%d", i, s.Sort, len(ids))
		}
	}
	if !slices.ContainsFunc(orders, func(o []uuid.UUID) bool { return slices.Equal(o, got) }) {
		t.Errorf("the end order %v is none of the submitted ones", got)
	}
}

func TestConcurrentSceneCreationsGoLastInTurn(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("create-race")
	statuses := race(func(i int) (response, error) {
		return ev.c.CreateSceneWithResponse(ctx(t), project, nil, content.SceneCreate{Key: fmt.Sprintf("k%d", i), Title: "t"}, ev.admin)
	})
	allAre(t, statuses, 201)
	l, err := ev.c.ListProjectScenesWithResponse(ctx(t), project, ev.user)
	want(t, l, err, 200)
	for i, s := range l.JSON200.Data {
		if s.Sort != i+1 {
			t.Fatalf("scene %d has sort %d: concurrent creations must each go last", i, s.Sort)
		}
	}
}

// linkSet is what a container PATCH submits: its categories and tags.
type linkSet struct{ categories, tags []uuid.UUID }

// containerLinks reads the container's links as the API shows them and checks that the copies
// on the container row (the search's) hold the same.
func containerLinks(t *testing.T, ev *env, id uuid.UUID) linkSet {
	t.Helper()
	d, err := ev.c.GetTemplateWithResponse(ctx(t), id.String(), ev.admin)
	want(t, d, err, 200)
	var got linkSet
	for _, c := range d.JSON200.Categories {
		got.categories = append(got.categories, *c.Id)
	}
	for _, tg := range d.JSON200.Tags {
		got.tags = append(got.tags, tg.Id)
	}
	var cats, tags []uuid.UUID
	if err := ev.pool.QueryRow(ctx(t), "SELECT category_ids, tag_ids FROM containers WHERE id = $1", id).Scan(&cats, &tags); err != nil {
		t.Fatal(err)
	}
	if !sameSet(cats, got.categories) || !sameSet(tags, got.tags) {
		t.Errorf("the search's copies %v %v differ from the links %v %v", cats, tags, got.categories, got.tags)
	}
	return got
}

func sameSet(a, b []uuid.UUID) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	cmp := func(x, y uuid.UUID) int { return slices.Compare(x[:], y[:]) }
	slices.SortFunc(a, cmp)
	slices.SortFunc(b, cmp)
	return slices.Equal(a, b)
}

func TestContainerLinkReplacementIsIdempotentAndRaceFree(t *testing.T) {
	ev := newEnv(t)
	cats := []uuid.UUID{ev.category("race-c1", nil), ev.category("race-c2", nil), ev.category("race-c3", nil)}
	tags := []uuid.UUID{ev.tag("race-t1"), ev.tag("race-t2"), ev.tag("race-t3")}
	current := linkSet{categories: cats[:2], tags: tags[:1]}
	id, _ := ev.container(containerSpec{slug: "links-race", categories: current.categories, tags: current.tags})
	patch := func(s linkSet) (*content.UpdateContainerResponse, error) {
		return ev.c.UpdateContainerWithResponse(ctx(t), id, content.ContainerUpdate{CategoryIds: &s.categories, TagIds: &s.tags}, ev.admin)
	}

	t.Run("re-sending the current links changes nothing", func(t *testing.T) {
		r, err := patch(current)
		want(t, r, err, 200)
		if got := containerLinks(t, ev, id); !sameSet(got.categories, current.categories) || !sameSet(got.tags, current.tags) {
			t.Errorf("links %v, want %v", got, current)
		}
	})
	t.Run("20 concurrent patches of the same and of other sets end in one of them", func(t *testing.T) {
		sets := make([]linkSet, racers)
		for i := range sets {
			switch i % 4 {
			case 0:
				sets[i] = current // the links the container has
			case 1:
				sets[i] = linkSet{categories: cats, tags: tags}
			case 2:
				sets[i] = linkSet{categories: cats[1:], tags: []uuid.UUID{}}
			default:
				sets[i] = linkSet{categories: []uuid.UUID{cats[i%3]}, tags: tags[i%3:]}
			}
		}
		statuses := race(func(i int) (response, error) { return patch(sets[i]) })
		allAre(t, statuses, 200)
		got := containerLinks(t, ev, id)
		if !slices.ContainsFunc(sets, func(s linkSet) bool {
			return sameSet(s.categories, got.categories) && sameSet(s.tags, got.tags)
		}) {
			t.Errorf("the end links %v are none of the submitted sets", got)
		}
	})
}

func TestConcurrentFavoritesOfOneUserKeepOneOfEach(t *testing.T) {
	ev := newEnv(t)
	tpl, _ := ev.container(containerSpec{slug: "fav-race", publish: true})

	t.Run("20 adds of one template give one favorite", func(t *testing.T) {
		statuses := race(func(i int) (response, error) {
			return ev.c.AddFavoriteContainerWithResponse(ctx(t), nil, content.FavoriteContainerCreate{ContainerId: tpl, Note: ptr(fmt.Sprintf("note %d", i))}, ev.user)
		})
		allAre(t, statuses, 201)
		var n int
		if err := ev.pool.QueryRow(ctx(t), "SELECT count(*) FROM favorite_containers WHERE user_id = $1", ev.userID).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d favorites (%v), want 1", n, err)
		}
	})
	t.Run("20 creations of one folder name give one folder and 409s", func(t *testing.T) {
		statuses := race(func(int) (response, error) {
			return ev.c.CreateFavoriteFolderWithResponse(ctx(t), nil, content.FavoriteFolderCreate{Name: "Weddings"}, ev.user)
		})
		allAre(t, statuses, 201, 409)
		if created := len(slices.DeleteFunc(slices.Clone(statuses), func(s int) bool { return s != 201 })); created != 1 {
			t.Errorf("%d folders created: %v", created, statuses)
		}
	})
}

func TestConcurrentPresetStoriesAndReordersOfOneProjectQueueOnTheProject(t *testing.T) {
	ev := newEnv(t)
	project := ev.publishedProject("story-race")
	a, b := ev.scene(project, "a").Id, ev.scene(project, "b").Id
	statuses := race(func(i int) (response, error) {
		if i%2 == 1 {
			order := []uuid.UUID{a, b}
			if i%4 == 1 {
				order = []uuid.UUID{b, a}
			}
			return ev.c.ReorderScenesWithResponse(ctx(t), order[0], content.ReorderScenesRequest{OrderedIds: order}, ev.admin)
		}
		return ev.c.CreatePresetStoryWithResponse(ctx(t), project, nil, content.PresetStoryCreate{Name: fmt.Sprintf("story %d", i), SceneIds: &[]uuid.UUID{b, a, b}}, ev.admin)
	})
	for i, s := range statuses {
		if want := map[bool]int{true: 204, false: 201}[i%2 == 1]; s != want {
			t.Fatalf("client %d got %d, want %d (all: %v)", i, s, want, statuses)
		}
	}
	l, err := ev.c.ListPresetStoriesWithResponse(ctx(t), project, ev.admin)
	want(t, l, err, 200)
	if len(l.JSON200.Data) != racers/2 {
		t.Fatalf("%d stories, want %d", len(l.JSON200.Data), racers/2)
	}
	for i, st := range l.JSON200.Data {
		if st.Sort != i+1 || st.SceneCount != 3 {
			t.Errorf("story %d has sort %d and %d scenes: concurrent creations must each go last, whole", i, st.Sort, st.SceneCount)
		}
	}
}
