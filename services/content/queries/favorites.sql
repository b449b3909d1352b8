-- Users' favorite folders and favorite templates.

-- name: ListFavoriteFolders :many
SELECT f.id, f.name, f.description, f.created_at,
       (SELECT count(*) FROM favorite_containers fc
        WHERE fc.folder_id = f.id AND fc.user_id = f.user_id)::integer AS item_count
FROM favorite_folders f
WHERE f.user_id = $1
ORDER BY f.created_at, f.id;

-- name: InsertFavoriteFolder :exec
INSERT INTO favorite_folders (id, user_id, name, description, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: FavoriteFolderOwned :one
SELECT EXISTS (SELECT 1 FROM favorite_folders WHERE id = @id AND user_id = @user_id);

-- name: UpsertFavoriteContainer :exec
-- Adding twice is harmless; folder_id and note change only when given.
INSERT INTO favorite_containers (user_id, container_id, folder_id, note, created_at)
VALUES (@user_id, @container_id, sqlc.narg(folder_id), coalesce(sqlc.narg(note)::text, ''), @created_at)
ON CONFLICT (user_id, container_id) DO UPDATE
SET folder_id = coalesce(EXCLUDED.folder_id, favorite_containers.folder_id),
    note = coalesce(sqlc.narg(note)::text, favorite_containers.note);

-- name: DeleteFavoriteContainer :exec
DELETE FROM favorite_containers WHERE user_id = $1 AND container_id = $2;
