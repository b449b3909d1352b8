package domain

// Page limits of every paginated list.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// PageRequest is a requested page, from 1.
type PageRequest struct {
	Number int
	Size   int
}

// NewPageRequest applies the defaults (page 1, size 20) and bounds (size at most 100) to the
// optional query parameters.
func NewPageRequest(number, size *int) PageRequest {
	p := PageRequest{Number: 1, Size: DefaultPageSize}
	if number != nil && *number > 0 {
		p.Number = *number
	}
	if size != nil && *size > 0 {
		p.Size = min(*size, MaxPageSize)
	}
	return p
}

// Offset is the number of rows before the page.
func (p PageRequest) Offset() int { return (p.Number - 1) * p.Size }

// PageMeta describes a returned page.
type PageMeta struct {
	Page, PageSize, Total int
	HasMore               bool
}

// Meta describes the page p of a list of total items.
func (p PageRequest) Meta(total int) PageMeta {
	return PageMeta{Page: p.Number, PageSize: p.Size, Total: total, HasMore: p.Offset()+p.Size < total}
}

// MetaOf describes the page p of a list whose total may be counted only up to a bound: more
// tells whether an item follows the page.
func (p PageRequest) MetaOf(total int, more bool) PageMeta {
	return PageMeta{Page: p.Number, PageSize: p.Size, Total: total, HasMore: more}
}
