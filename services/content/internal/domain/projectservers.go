package domain

import (
	"context"

	"github.com/google/uuid"
)

// ProjectServer is a render server used for node assignment.
type ProjectServer struct {
	ID                    uuid.UUID
	Name                  string
	Region                string
	IP                    string
	DefaultProjectAddress string
	RenderOutputLocation  string
	MinioEndpoint         string
	MinioBucketTemplates  string
	MinioBucketOutputs    string
	IsActive              bool
}

// ProjectServerStore keeps the render servers.
type ProjectServerStore interface {
	ProjectServerExists(ctx context.Context, id uuid.UUID) (bool, error)
	ListProjectServers(ctx context.Context) ([]ProjectServer, error)
}
