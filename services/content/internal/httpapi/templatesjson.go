package httpapi

import (
	"net/http"
	"strconv"

	"github.com/videotpl/platform/pkg/httpx/jsonw"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// templatePageJSON is the 200 response of GET /templates, the catalog's hottest read, written
// by hand like the project aggregate (see projectsjson.go) and held equal to the generated types'
// encoding by TestTemplatePageJSONMatchesTheGeneratedTypes.
type templatePageJSON struct {
	cards []domain.TemplateCard
	meta  domain.PageMeta
}

// VisitListTemplatesResponse writes the page.
func (r templatePageJSON) VisitListTemplatesResponse(w http.ResponseWriter) error {
	return jsonw.Buffered(w, http.StatusOK, func(out *jsonw.Writer) { writeTemplatePage(out, r.cards, r.meta) })
}

func writeTemplatePage(w *jsonw.Writer, cards []domain.TemplateCard, m domain.PageMeta) {
	w.Open('{')
	w.Key("data", true)
	w.Open('[')
	for i, c := range cards {
		if i > 0 {
			w.B = append(w.B, ',')
		}
		w.Open('{')
		w.ID("container_id", c.ContainerID, true)
		w.Str("slug", c.Slug, false)
		w.Str("name", c.Name, false)
		w.Str("image", c.Image, false)
		w.Str("demo", c.Demo, false)
		w.Str("mini_demo", c.MiniDemo, false)
		w.Bool("is_premium", c.IsPremium)
		w.Bool("is_mockup", c.IsMockup)
		w.Str("primary_mode", c.PrimaryMode, false)
		w.Num("rate_avg", c.RateAvg)
		w.Int("rate_count", c.RateCount, false)
		w.Key("use_count", false)
		w.B = strconv.AppendInt(w.B, c.UseCount, 10)
		w.Key("available_aspects", false)
		w.Open('[')
		for k, a := range c.AvailableAspects {
			if k > 0 {
				w.B = append(w.B, ',')
			}
			w.B = jsonw.AppendString(w.B, a)
		}
		w.Close(']')
		w.Close('}')
	}
	w.Close(']')
	w.Key("meta", false)
	w.Open('{')
	w.Int("page", m.Page, true)
	w.Int("page_size", m.PageSize, false)
	w.Int("total", m.Total, false)
	w.Bool("has_more", m.HasMore)
	w.Close('}')
	w.Close('}')
}
