package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Store is the persistence the application needs. Lookups of a missing row return a NotFound
// error; unique and reference violations come back as the errors of this package (or Invalid
// errors naming the field).
type Store interface {
	// InTx runs fn with a Store bound to one transaction: committed when fn returns nil.
	InTx(ctx context.Context, fn func(Store) error) error
	// HandleOnce runs fn in a transaction that also records jobID for consumer; for a jobID
	// already recorded it runs nothing and returns false.
	HandleOnce(ctx context.Context, consumer string, jobID uuid.UUID, fn func(Store) error) (bool, error)

	CatalogStore
	ProjectStore
	SceneStore
	LibraryStore
	UserStore
	CMSStore
	MediaStore
}

// CatalogStore keeps containers, their links, categories and tags.
type CatalogStore interface {
	ListTemplates(ctx context.Context, q TemplateQuery) (cards []TemplateCard, total int, err error)
	ListRelatedTemplates(ctx context.Context, id uuid.UUID, includeUnpublished bool, limit int) ([]TemplateCard, error)
	GetContainer(ctx context.Context, id uuid.UUID) (Container, error)
	GetContainerForUpdate(ctx context.Context, id uuid.UUID) (Container, error)
	GetContainerBySlug(ctx context.Context, slug string) (Container, error)
	ContainerLinks(ctx context.Context, id uuid.UUID) ([]Category, []Tag, error)
	ListContainerProjects(ctx context.Context, id uuid.UUID, includeUnpublished bool) ([]ProjectSummary, error)
	InsertContainer(ctx context.Context, c Container) error
	UpdateContainer(ctx context.Context, c Container) error
	// SetContainerLinks replaces the category links (when categories is not nil) and the tag
	// links (when tags is not nil).
	SetContainerLinks(ctx context.Context, id uuid.UUID, categories, tags *[]uuid.UUID) error
	ExistingCategoryIDs(ctx context.Context, ids []uuid.UUID) ([]uuid.UUID, error)
	ExistingTagIDs(ctx context.Context, ids []uuid.UUID) ([]uuid.UUID, error)
	SetContainerPublished(ctx context.Context, id uuid.UUID, published bool, reason, actor string, at time.Time) error
	SoftDeleteContainer(ctx context.Context, id uuid.UUID, at time.Time) error

	ListCategories(ctx context.Context) ([]Category, error)
	InsertCategory(ctx context.Context, c Category) error
	ListTags(ctx context.Context) ([]Tag, error)
}

// ProjectStore keeps projects and what hangs from them at project level.
type ProjectStore interface {
	GetProject(ctx context.Context, id uuid.UUID) (Project, Visibility, error)
	GetProjectForUpdate(ctx context.Context, id uuid.UUID) (Project, Visibility, error)
	InsertProject(ctx context.Context, p Project) error
	UpdateProject(ctx context.Context, p Project) error
	DeleteProject(ctx context.Context, id uuid.UUID) error
	ProjectServerExists(ctx context.Context, id uuid.UUID) (bool, error)
	// ProjectFull reads the aggregate of p in a constant number of queries.
	ProjectFull(ctx context.Context, p Project, includeUnpublishedStories bool) (ProjectFull, error)
	ListSharedLayers(ctx context.Context, projectID uuid.UUID) ([]SharedLayer, error)
	InsertSharedLayer(ctx context.Context, l SharedLayer) error
	ListSharedColors(ctx context.Context, projectID uuid.UUID) ([]SharedColor, error)
	ListPresetStories(ctx context.Context, projectID uuid.UUID, includeUnpublished bool) ([]PresetStory, error)
	GetPresetStory(ctx context.Context, id uuid.UUID) (PresetStoryFull, error)
	NextPresetStorySort(ctx context.Context, projectID uuid.UUID) (int, error)
	InsertPresetStory(ctx context.Context, s PresetStory, sceneIDs []uuid.UUID) error
	MusicTrackExists(ctx context.Context, id uuid.UUID) (bool, error)
	ListProjectServers(ctx context.Context) ([]ProjectServer, error)
}

// SceneStore keeps scenes and their elements.
type SceneStore interface {
	ListScenes(ctx context.Context, projectID uuid.UUID) ([]Scene, error)
	GetScene(ctx context.Context, id uuid.UUID) (Scene, Visibility, error)
	GetSceneForUpdate(ctx context.Context, id uuid.UUID) (Scene, error)
	SceneElements(ctx context.Context, sceneID uuid.UUID) (SceneElements, error)
	NextSceneSort(ctx context.Context, projectID uuid.UUID) (int, error)
	InsertScene(ctx context.Context, s Scene) error
	UpdateScene(ctx context.Context, s Scene) error
	DeleteScene(ctx context.Context, id uuid.UUID) error
	// LockSceneIDs returns the project's scene ids, locked until the transaction ends.
	LockSceneIDs(ctx context.Context, projectID uuid.UUID) ([]uuid.UUID, error)
	SetSceneOrder(ctx context.Context, projectID uuid.UUID, ordered []uuid.UUID) error
	ExistingSceneIDs(ctx context.Context, projectID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error)

	InsertContent(ctx context.Context, e ContentElement) error
	GetContentForUpdate(ctx context.Context, id uuid.UUID) (ContentElement, error)
	UpdateContent(ctx context.Context, e ContentElement) error
	DeleteContent(ctx context.Context, id uuid.UUID) error
	InsertColor(ctx context.Context, c ColorElement) error
	GetColorForUpdate(ctx context.Context, id uuid.UUID) (ColorElement, error)
	UpdateColor(ctx context.Context, c ColorElement) error
	DeleteColor(ctx context.Context, id uuid.UUID) error
}

// LibraryStore keeps fonts and music.
type LibraryStore interface {
	ListFonts(ctx context.Context) ([]Font, error)
	DeleteFont(ctx context.Context, id uuid.UUID) error
	ListMusic(ctx context.Context, q MusicQuery) ([]MusicTrack, int, error)
	InsertMusicTrack(ctx context.Context, m MusicTrack) error
}

// UserStore keeps favorites and comments.
type UserStore interface {
	ListFavoriteFolders(ctx context.Context, user uuid.UUID) ([]FavoriteFolder, error)
	InsertFavoriteFolder(ctx context.Context, f FavoriteFolder) error
	FavoriteFolderOwned(ctx context.Context, id, user uuid.UUID) (bool, error)
	UpsertFavorite(ctx context.Context, f Favorite) error
	DeleteFavorite(ctx context.Context, user, container uuid.UUID) error
	BlogExists(ctx context.Context, id uuid.UUID) (bool, error)
	GetCommentTarget(ctx context.Context, id uuid.UUID) (CommentTarget, error)
	InsertComment(ctx context.Context, c Comment) error
}

// CMSStore keeps blogs, slides, home events and website settings.
type CMSStore interface {
	ListBlogs(ctx context.Context, q BlogQuery) ([]Blog, int, error)
	GetBlogBySlug(ctx context.Context, slug string) (Blog, error)
	ListSlides(ctx context.Context) ([]Slide, error)
	ListHomeEvents(ctx context.Context) ([]HomeEvent, error)
	PublicSettings(ctx context.Context, tenant uuid.UUID) (Settings, error)
}
