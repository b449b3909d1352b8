// Command sdkgen writes the package files of a TypeScript SDK next to the types that
// openapi-typescript generates (src/schema.ts): package.json, tsconfig.json (ESM),
// tsconfig.cjs.json (CommonJS) and src/index.ts, a typed openapi-fetch client with the spec's
// default server and a bearer-token option.
//
//	go run ./sdkgen -spec ../specs/openapi/content.yaml -out ../gen/ts/content -npm-root ..
//
// The package name is @videotpl/<service>-sdk and its version the spec's info.version; the
// openapi-fetch dependency is pinned to the version of the repository's package.json, so the
// SDK is compiled and tested against the client it ships with. `make sdk` compiles it (tsc) twice:
// ES modules into dist/esm and CommonJS into dist/cjs, chosen by package.json's exports conditions.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"gopkg.in/yaml.v3"
)

func main() {
	spec := flag.String("spec", "", "OpenAPI document (YAML) of the service")
	out := flag.String("out", "", "package directory, e.g. ../gen/ts/content (src/schema.ts is openapi-typescript's)")
	npmRoot := flag.String("npm-root", "..", "directory of the repository's package.json (pins openapi-fetch)")
	flag.Parse()
	if *spec == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: sdkgen -spec S.yaml -out DIR [-npm-root DIR]")
		os.Exit(2)
	}
	if err := run(*spec, *out, *npmRoot); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}

// document is the part of the OpenAPI document the package files need.
type document struct {
	Info struct {
		Title       string `yaml:"title"`
		Version     string `yaml:"version"`
		Description string `yaml:"description"`
	} `yaml:"info"`
	Servers []struct {
		URL       string `yaml:"url"`
		Variables map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"variables"`
	} `yaml:"servers"`
}

// sdk is what the templates are filled with.
type sdk struct {
	Service        string // content
	Ident          string // Content
	Package        string // @videotpl/content-sdk
	Title          string
	Version        string
	SpecPath       string // specs/openapi/content.yaml
	DefaultBaseURL string
	OpenAPIFetch   string // pinned version
	BuildScript    string // package.json's build script, JSON-escaped
}

func run(specPath, out, npmRoot string) error {
	raw, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	var doc document
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	if doc.Info.Version == "" || doc.Info.Title == "" {
		return fmt.Errorf("%s: info.title and info.version are required", specPath)
	}
	service := strings.TrimSuffix(filepath.Base(specPath), filepath.Ext(specPath))
	if !regexp.MustCompile(`^[a-z][a-z0-9]*$`).MatchString(service) {
		return fmt.Errorf("%s: the file name must be the service name in lower case", specPath)
	}
	fetch, err := pinnedVersion(filepath.Join(npmRoot, "package.json"), "openapi-fetch")
	if err != nil {
		return err
	}
	s := sdk{
		Service:        service,
		Ident:          strings.ToUpper(service[:1]) + service[1:],
		Package:        "@videotpl/" + service + "-sdk",
		Title:          doc.Info.Title,
		Version:        doc.Info.Version,
		SpecPath:       "specs/openapi/" + filepath.Base(specPath),
		DefaultBaseURL: defaultServer(doc),
		OpenAPIFetch:   fetch,
		BuildScript:    jsonString(buildScript),
	}
	files := map[string]*template.Template{
		"package.json":      packageJSON,
		"tsconfig.json":     tsconfigJSON,
		"tsconfig.cjs.json": tsconfigCJS,
		"src/index.ts":      indexTS,
		"README.md":         readme,
	}
	for name, tpl := range files {
		var buf bytes.Buffer
		if err := tpl.Execute(&buf, s); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		path := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// defaultServer is the first server URL with its variables at their defaults.
func defaultServer(doc document) string {
	if len(doc.Servers) == 0 {
		return ""
	}
	u := doc.Servers[0].URL
	for name, v := range doc.Servers[0].Variables {
		u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
	}
	return u
}

// jsonString is s escaped for a JSON string literal, without the quotes.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep && readable
	_ = enc.Encode(s)        // a string always encodes
	return strings.TrimSuffix(strings.TrimSpace(buf.String()), `"`)[1:]
}

// pinnedVersion reads an exact version of pkg from package.json's dependencies.
func pinnedVersion(path, pkg string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var p struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	v := p.DevDependencies[pkg]
	if v == "" {
		v = p.Dependencies[pkg]
	}
	if v == "" {
		return "", fmt.Errorf("%s does not list %s", path, pkg)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		return "", errors.New(path + ": " + pkg + " must be pinned to an exact version, not " + v)
	}
	return v, nil
}

var packageJSON = template.Must(template.New("package.json").Parse(`{
  "name": "{{.Package}}",
  "version": "{{.Version}}",
  "description": "TypeScript SDK of the {{.Title}}: types and a fetch client generated from {{.SpecPath}}.",
  "license": "UNLICENSED",
  "type": "module",
  "main": "./dist/cjs/index.js",
  "types": "./dist/cjs/index.d.ts",
  "exports": {
    ".": {
      "import": {
        "types": "./dist/esm/index.d.ts",
        "default": "./dist/esm/index.js"
      },
      "require": {
        "types": "./dist/cjs/index.d.ts",
        "default": "./dist/cjs/index.js"
      }
    }
  },
  "files": ["dist", "src", "README.md"],
  "sideEffects": false,
  "engines": {
    "node": ">=18"
  },
  "scripts": {
    "build": "{{.BuildScript}}"
  },
  "dependencies": {
    "openapi-fetch": "{{.OpenAPIFetch}}"
  }
}
`))

// buildScript compiles the package twice: ES modules into dist/esm and CommonJS into dist/cjs,
// whose package.json marker makes Node load its .js files as CommonJS inside this
// "type": "module" package.
const buildScript = `tsc -p tsconfig.json && tsc -p tsconfig.cjs.json && ` +
	`node -e "require('fs').writeFileSync('dist/cjs/package.json', JSON.stringify({ type: 'commonjs' }) + '\n')"`

var tsconfigJSON = template.Must(template.New("tsconfig.json").Parse(`{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2022", "DOM"],
    "strict": true,
    "declaration": true,
    "declarationMap": true,
    "sourceMap": true,
    "isolatedModules": true,
    "skipLibCheck": true,
    "rootDir": "src",
    "outDir": "dist/esm"
  },
  "include": ["src"]
}
`))

// tsconfigCJS is the CommonJS build for require() consumers; Node10 resolution is what
// TypeScript allows with CommonJS output, and esModuleInterop loads openapi-fetch's default export.
var tsconfigCJS = template.Must(template.New("tsconfig.cjs.json").Parse(`{
  "extends": "./tsconfig.json",
  "compilerOptions": {
    "module": "CommonJS",
    "moduleResolution": "Node10",
    "esModuleInterop": true,
    "outDir": "dist/cjs"
  }
}
`))

var indexTS = template.Must(template.New("index.ts").Parse(`// Code generated by tools/sdkgen from {{.SpecPath}}. DO NOT EDIT.
//
// The {{.Title}} for TypeScript: every path, parameter, body and response is typed from the
// OpenAPI document (./schema.ts, generated by openapi-typescript) and checked by the compiler.
//
//   import { create{{.Ident}}Client } from "{{.Package}}";
//   const api = create{{.Ident}}Client({ baseUrl: "{{.DefaultBaseURL}}", token: process.env.TOKEN });
//   const { data, error, response } = await api.GET("/...", { params: { ... } });
//
// data is set on a 2xx answer; error holds the problem+json body (RFC 9457) otherwise.
import createClient, { type Client, type ClientOptions, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

/** The schemas of the API by name, e.g. Schemas["Problem"]. */
export type Schemas = components["schemas"];

/** The version of the API this package was generated from (info.version). */
export const apiVersion = "{{.Version}}";

/** The spec's default server (local development); pass baseUrl for any other deployment. */
export const defaultBaseUrl = "{{.DefaultBaseURL}}";

/** A bearer credential (a JWT or a service token), or a function that returns a fresh one. */
export type Token = string | (() => string | Promise<string>);

export interface {{.Ident}}ClientOptions extends ClientOptions {
  /** Sent as "Authorization: Bearer <token>" with every request when set. */
  token?: Token;
}

/** A typed client of the {{.Title}}. */
export type {{.Ident}}Client = Client<paths>;

/** Creates a client of the {{.Title}} (openapi-fetch). */
export function create{{.Ident}}Client(options: {{.Ident}}ClientOptions = {}): {{.Ident}}Client {
  const { token, baseUrl = defaultBaseUrl, ...rest } = options;
  const client = createClient<paths>({ baseUrl, ...rest });
  if (token !== undefined) {
    client.use(bearer(token));
  }
  return client;
}

/** A middleware that adds the bearer credential to each request. */
export function bearer(token: Token): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof token === "function" ? await token() : token;
      request.headers.set("Authorization", "Bearer " + value);
      return request;
    },
  };
}
`))

var readme = template.Must(template.New("README.md").Parse(`# {{.Package}}

TypeScript SDK of the {{.Title}} (version {{.Version}}), generated from ` + "`{{.SpecPath}}`" + ` by
openapi-typescript (types, ` + "`src/schema.ts`" + `) and tools/sdkgen (this package, ` + "`src/index.ts`" + `).
Do not edit: ` + "`make generate`" + ` rewrites it; ` + "`make sdk`" + ` (or ` + "`npm run build`" + `) compiles it twice, into
` + "`dist/esm`" + ` for ` + "`import`" + ` and ` + "`dist/cjs`" + ` for ` + "`require()`" + `: ES modules and CommonJS programs both use it.

` + "```ts" + `
import { create{{.Ident}}Client } from "{{.Package}}";

const api = create{{.Ident}}Client({ baseUrl: "{{.DefaultBaseURL}}", token: process.env.TOKEN });
const { data, error, response } = await api.GET("/..."); // paths, params and bodies are typed
` + "```" + `

In CommonJS: ` + "`const { create{{.Ident}}Client } = require(\"{{.Package}}\");`" + `
`))
