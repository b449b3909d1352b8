package httpapi

import (
	"net/http"
	"strconv"

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
	buf := jsonBuffers.Get().(*[]byte)
	defer jsonBuffers.Put(buf)
	out := &jw{b: (*buf)[:0]}
	writeTemplatePage(out, r.cards, r.meta)
	*buf = out.b[:0]
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out.b)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(out.b)
	return err
}

func writeTemplatePage(w *jw, cards []domain.TemplateCard, m domain.PageMeta) {
	w.open('{')
	w.key("data", true)
	w.open('[')
	for i, c := range cards {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.open('{')
		w.id("container_id", c.ContainerID, true)
		w.str("slug", c.Slug, false)
		w.str("name", c.Name, false)
		w.str("image", c.Image, false)
		w.str("demo", c.Demo, false)
		w.str("mini_demo", c.MiniDemo, false)
		w.bool("is_premium", c.IsPremium)
		w.bool("is_mockup", c.IsMockup)
		w.str("primary_mode", c.PrimaryMode, false)
		w.num("rate_avg", c.RateAvg)
		w.int("rate_count", c.RateCount, false)
		w.key("use_count", false)
		w.b = strconv.AppendInt(w.b, c.UseCount, 10)
		w.key("available_aspects", false)
		w.open('[')
		for k, a := range c.AvailableAspects {
			if k > 0 {
				w.b = append(w.b, ',')
			}
			w.b = appendString(w.b, a)
		}
		w.close(']')
		w.close('}')
	}
	w.close(']')
	w.key("meta", false)
	w.open('{')
	w.int("page", m.Page, true)
	w.int("page_size", m.PageSize, false)
	w.int("total", m.Total, false)
	w.bool("has_more", m.HasMore)
	w.close('}')
	w.close('}')
}
