package store

import (
	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/pgxdb"
)

// translate is the store's one reading of database errors (pgxdb.Translate): a missing row is
// NotFound "<what> not found". No constraint of the read models guards a caller's input by
// name, so there is no table of them.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	return pgxdb.Translate(err, pgxdb.Errors{NotFound: errs.E(errs.NotFound, what+" not found"), Subject: what})
}
