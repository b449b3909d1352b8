package httpx

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// Every service documents itself: /openapi.yaml is its spec as written, /docs renders it with
// Redoc, whose standalone bundle is embedded here (copied from node_modules by `make generate`;
// docs_test.go checks the copy is current). No page loads anything from another host.

// RedocAsset is the path of the embedded Redoc bundle, below /docs; the notices of the
// libraries it bundles are beside it, where its first line points.
const RedocAsset = "/docs/redoc.standalone.js"

const redocLicenses = RedocAsset + ".LICENSE.txt"

// SpecContentType is the media type of /openapi.yaml: a text/ type, so that a browser shows the
// document instead of downloading it (Chromium downloads application/yaml), and YAML tools accept.
const SpecContentType = "text/yaml; charset=utf-8"

// docsAssets is the one package-level variable here: go:embed can fill nothing else.
//
//go:embed docsassets/redoc.standalone.js docsassets/redoc.standalone.js.LICENSE.txt
var docsAssets embed.FS

// docsPage is the HTML shell Redoc renders into. Redoc reads its options from the attributes of
// <redoc>: the responses of success expanded, required properties first, the download button
// kept, and no favicon request (it would log a 404 in the browser console).
const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; } img:not([src]) { display: none; }</style>
<script>{{.Guard}}</script>
</head>
<body>
<noscript>This page renders the API reference with JavaScript. The contract itself is at <a href="openapi.yaml">openapi.yaml</a>.</noscript>
<redoc spec-url="openapi.yaml" expand-responses="200,201,202,204" required-props-first="true"
  path-in-middle-panel="true" show-object-schema-examples="true" show-extensions="true"
  hide-download-button="false" hide-hostname="true" menu-toggle="true"></redoc>
<script src="{{.Asset}}"></script>
</body>
</html>
`

// offHostImageGuard runs before Redoc: the credits in Redoc's menu show a logo from Redocly's
// CDN, and this page fetches nothing from another host (nothing to track the reader by, and no
// failed request where there is no internet). An image whose source is on another host gets
// none, whether it is set as an attribute or as the src property, and the page's style hides
// an image without a source.
const offHostImageGuard = `(function () {
  function offHost(value) {
    var url = new URL(String(value), location.href);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin !== location.origin;
  }
  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (this instanceof HTMLImageElement && String(name).toLowerCase() === "src" && offHost(value)) { return; }
    return setAttribute.call(this, name, value);
  };
  var src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    configurable: true, enumerable: src.enumerable, get: src.get,
    set: function (value) { if (!offHost(value)) { src.set.call(this, value); } }
  });
})();`

// docsPolicy is the Content-Security-Policy of /docs: scripts, styles, images and requests of
// this server only (Redoc injects its styles and runs its search in a blob: worker), so a
// future version of the bundle cannot reach another host unnoticed either.
func docsPolicy(guard string) string {
	sum := sha256.Sum256([]byte(guard))
	return "default-src 'none'; script-src 'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
		"worker-src 'self' blob:; base-uri 'none'; form-action 'none'"
}

// docs serves /docs, its Redoc bundle and /openapi.yaml.
type docs struct {
	page     []byte
	policy   string // Content-Security-Policy of the page
	spec     []byte
	bundle   []byte
	licenses []byte
	etag     string // of the bundle; the gzipped variant has its own
	gzipOnce sync.Once
	gzipped  []byte
}

func newDocs(spec *openapi3.T, document []byte) (*docs, error) {
	title, version := "API", ""
	if spec.Info != nil {
		title, version = spec.Info.Title, spec.Info.Version
	}
	tmpl, err := template.New("docs").Parse(docsPage)
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	// The asset is addressed relative to /docs, so the page also works behind a path prefix.
	if err := tmpl.Execute(&page, map[string]any{"Title": title, "Version": version,
		"Asset": strings.TrimPrefix(RedocAsset, "/"), "Guard": template.JS(offHostImageGuard)}); err != nil {
		return nil, err
	}
	bundle, err := docsAssets.ReadFile("docsassets/redoc.standalone.js")
	if err != nil {
		return nil, err
	}
	licenses, err := docsAssets.ReadFile("docsassets/redoc.standalone.js.LICENSE.txt")
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(bundle)
	return &docs{page: page.Bytes(), policy: docsPolicy(offHostImageGuard), spec: document, bundle: bundle, licenses: licenses,
		etag: `"` + hex.EncodeToString(sum[:8]) + `"`}, nil
}

// register adds the routes; each answers GET and HEAD.
func (d *docs) register(e *echo.Echo) {
	both := []string{http.MethodGet, http.MethodHead}
	e.Match(both, "/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, SpecContentType, d.spec)
	})
	e.Match(both, "/docs", func(c echo.Context) error {
		c.Response().Header().Set("Content-Security-Policy", d.policy)
		return c.HTMLBlob(http.StatusOK, d.page)
	})
	e.Match(both, RedocAsset, d.serveBundle)
	e.Match(both, redocLicenses, func(c echo.Context) error {
		return c.Blob(http.StatusOK, "text/plain; charset=utf-8", d.licenses)
	})
}

// serveBundle sends the bundle gzipped when the client accepts it (a third of the size), with an
// ETag so a browser revalidates instead of downloading it again.
func (d *docs) serveBundle(c echo.Context) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", echo.HeaderAcceptEncoding)
	body, etag := d.bundle, d.etag
	if acceptsGzip(c.Request().Header.Get(echo.HeaderAcceptEncoding)) {
		d.gzipOnce.Do(func() { d.gzipped = gzipped(d.bundle) })
		if d.gzipped != nil {
			h.Set(echo.HeaderContentEncoding, "gzip")
			body, etag = d.gzipped, strings.TrimSuffix(d.etag, `"`)+`-gzip"`
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(body))
	return nil
}

func acceptsGzip(acceptEncoding string) bool {
	for part := range strings.SplitSeq(acceptEncoding, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// gzipped compresses b; nil when it cannot (the bundle is then sent as it is).
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil
	}
	if _, err := zw.Write(b); err != nil {
		return nil
	}
	if err := zw.Close(); err != nil {
		return nil
	}
	return buf.Bytes()
}
