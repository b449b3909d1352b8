// Package store holds the content service's outward adapters: domain.Store on PostgreSQL
// through the sqlc queries of gen/db/content (and, for the catalog search whose filters vary
// per request, SQL composed here), with the outbox and inbox of pkg/bus in its transactions,
// and domain.ObjectStore on S3. It maps PostgreSQL constraint violations to the domain's
// errors in one table; sqlc row types never leave the package. Each file holds one resource
// group, like its queries/<group>.sql.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// HandleOnce runs fn in a transaction that records (consumer, jobID) in the inbox.
func (s *Store) HandleOnce(ctx context.Context, consumer string, jobID uuid.UUID, fn func(domain.Store) error) (bool, error) {
	return bus.HandleOnce(ctx, s.pool, consumer, jobID, func(ctx context.Context, tx pgx.Tx) error {
		return fn(&Store{pool: s.pool, db: tx, q: contentdb.New(tx), inTx: true, catalog: s.catalog})
	})
}

// tx is the store's transaction: the outbox is written in the transaction of the change.
func (s *Store) tx() (pgx.Tx, error) {
	tx, ok := s.db.(pgx.Tx)
	if !ok {
		return nil, errors.New("store: the outbox is written in a transaction (InTx)")
	}
	return tx, nil
}

// Store is the PostgreSQL store. Its zero value is not usable; build it with New.
type Store struct {
	pool *pgxpool.Pool
	db   contentdb.DBTX
	q    *contentdb.Queries
	inTx bool
	// catalog decides how the catalog search counts its total (see bucketWalk).
	catalog *catalogSize
}

var _ domain.Store = (*Store)(nil)

// New returns a store on pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, db: pool, q: contentdb.New(pool), catalog: &catalogSize{}}
}

// InTx runs fn in one transaction; inside a transaction it just runs fn.
func (s *Store) InTx(ctx context.Context, fn func(domain.Store) error) error {
	if s.inTx {
		return fn(s)
	}
	return pgxdb.WithTx(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(&Store{pool: s.pool, db: tx, q: contentdb.New(tx), inTx: true, catalog: s.catalog})
	})
}

// constraints maps constraint names to what the caller is told. Unique keys become the domain's
// conflicts; references given in a body become 400 naming the field.
var constraints = map[string]error{
	"containers_slug_key":                   domain.ErrSlugTaken,
	"categories_slug_key":                   domain.ErrCategorySlugTaken,
	"categories_parent_id_fkey":             invalid("body.parent_id", "is not an existing category"),
	"projects_container_id_fkey":            invalid("body.container_id", "is not an existing template"),
	"projects_project_server_id_fkey":       invalid("body.project_server_id", "is not an existing project server"),
	"scenes_project_key_key":                domain.ErrSceneKeyTaken,
	"scenes_project_id_fkey":                domain.ErrProjectNotFound,
	"scene_contents_scene_key_key":          domain.ErrContentKeyTaken,
	"scene_contents_scene_fkey":             domain.ErrSceneNotFound,
	"scene_contents_repeater_fkey":          invalid("body.repeater_item_id", "is not a repeater item of the scene"),
	"scene_contents_font_id_fkey":           invalid("body.font_id", "is not an existing font"),
	"scene_colors_scene_key_key":            domain.ErrColorKeyTaken,
	"scene_colors_scene_fkey":               domain.ErrSceneNotFound,
	"scene_colors_attr_value_check":         invalid("body.attr_value", "must be one of fill, stroke, tracking, dropshadow"),
	"shared_layers_project_key_key":         domain.ErrLayerKeyTaken,
	"shared_layers_project_id_fkey":         domain.ErrProjectNotFound,
	"preset_stories_music_id_fkey":          invalid("body.music_id", "is not an existing music track"),
	"preset_stories_project_id_fkey":        domain.ErrProjectNotFound,
	"preset_story_scenes_scene_fkey":        invalid("body.scene_ids", "holds an id that is not a scene of the project"),
	"favorite_folders_user_name_key":        domain.ErrFolderNameTaken,
	"favorite_containers_folder_fkey":       invalid("body.folder_id", "is not one of your folders"),
	"favorite_containers_container_id_fkey": invalid("body.container_id", "is not an existing template"),
	"comments_blog_id_fkey":                 invalid("body.blog_id", "is not an existing blog"),
	"comments_container_id_fkey":            invalid("body.container_id", "is not an existing template"),
	"comments_parent_comment_id_fkey":       invalid("body.parent_comment_id", "is not an existing comment"),
	"comments_rate_check":                   invalid("body.rate", "must be from 0 to 5"),
	"comments_one_target_check":             invalid("body", "exactly one of blog_id and container_id is needed"),
}

func invalid(field, msg string) error { return errs.InvalidFields(errs.Field(field, msg)) }

// translate is the store's one reading of database errors (pgxdb.Translate with the constraints
// above); notFound stands for a missing row, nil leaves pgx.ErrNoRows to the caller. Every
// foreign key of content cascades or nulls on delete, so a violation no entry names is a write
// referring to a record that is gone: NotFound.
func translate(err, notFound error) error {
	return pgxdb.Translate(err, pgxdb.Errors{NotFound: notFound, Constraints: constraints, ForeignKey: errs.NotFound})
}

// decode reads a jsonb column into v; an empty column leaves v as it is.
func decode[T any](raw json.RawMessage, v *T) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode jsonb: %w", err)
	}
	return nil
}

// encode writes v as a jsonb value.
func encode(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode jsonb: %w", err)
	}
	return b, nil
}

func i32(v int) int32 { return int32(v) } //nolint:gosec // values are bounded by the contract

func i32p(v *int) *int32 {
	if v == nil {
		return nil
	}
	n := int32(*v) //nolint:gosec // bounded by the contract
	return &n
}

func intp(v *int32) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}
