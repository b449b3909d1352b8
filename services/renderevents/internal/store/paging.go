package store

import (
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/services/renderevents/internal/domain"
)

func after(p domain.Page) (*time.Time, *string, *uuid.UUID) {
	if p.After == nil {
		return nil, nil, nil
	}
	id := p.After.ID
	return p.After.Time, p.After.Text, &id
}

func maxRows(p domain.Page) int32 { return int32(p.Limit + 1) }
