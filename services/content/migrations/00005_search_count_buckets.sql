-- +goose Up
-- The catalog search's total is exact up to a bound (1,000). Counting it through the search's
-- GIN index built a bitmap of every match in the catalog before the first one was counted, so
-- its cost grew with the catalog. Each template now also carries a counting bucket, by its
-- place in the order templates were added: bucket k holds the 2^k x 16,384 templates that
-- follow the first (2^k - 1) x 16,384. The search counts bucket after bucket and stops at the
-- bound, so it reads about as many templates as it takes to find 1,000 matches, whatever the
-- size of the catalog, and a catalog of up to 16,384 templates is one bucket.

-- +goose StatementBegin
CREATE FUNCTION containers_count_bucket(seq bigint) RETURNS smallint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (length(ltrim((seq / 16384 + 1)::bit(64)::text, '0')) - 1)::smallint $$;
-- +goose StatementEnd

CREATE SEQUENCE containers_count_seq AS bigint MINVALUE 0 START WITH 0;

ALTER TABLE containers ADD COLUMN count_bucket smallint;
UPDATE containers c
SET count_bucket = containers_count_bucket(o.seq)
FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) - 1 AS seq FROM containers) o
WHERE o.id = c.id;
SELECT setval('containers_count_seq', count(*), false) FROM containers;
ALTER TABLE containers
    ALTER COLUMN count_bucket SET DEFAULT containers_count_bucket(nextval('containers_count_seq')),
    ALTER COLUMN count_bucket SET NOT NULL;
ALTER SEQUENCE containers_count_seq OWNED BY containers.count_bucket;

-- The bucket joins the public search's GIN index (btree_gin indexes a smallint), so that the
-- index finds a bucket's matches without reading the others'.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX containers_visible_filter_idx;
CREATE INDEX containers_visible_filter_idx ON containers USING gin (search, tag_ids, category_ids, count_bucket)
    WITH (fastupdate = off) WHERE is_published AND deleted_at IS NULL;

-- +goose Down
DROP INDEX containers_visible_filter_idx;
CREATE INDEX containers_visible_filter_idx ON containers USING gin (search, tag_ids, category_ids)
    WITH (fastupdate = off) WHERE is_published AND deleted_at IS NULL;
ALTER TABLE containers DROP COLUMN count_bucket;
DROP FUNCTION containers_count_bucket(bigint);
