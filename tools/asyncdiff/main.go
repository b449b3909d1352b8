// Command asyncdiff reports breaking changes between two AsyncAPI documents and exits 1 when
// there is any. Breaking, for an event catalogue read by consumers who validate strictly:
// a channel, message or schema property removed; a type or format changed; a field newly
// required or no longer required; an enum value removed or added; a bound tightened.
// Adding an optional property, a message or a channel is not breaking.
//
//	asyncdiff old.yaml new.yaml
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: asyncdiff old.yaml new.yaml")
		os.Exit(2)
	}
	oldDoc, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	newDoc, err := load(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	changes := Diff(oldDoc, newDoc)
	for _, c := range changes {
		fmt.Println(c)
	}
	if len(changes) > 0 {
		os.Exit(1)
	}
}

func load(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// Diff lists the breaking changes from oldDoc to newDoc, sorted.
func Diff(oldDoc, newDoc map[string]any) []string {
	d := differ{oldRoot: oldDoc, newRoot: newDoc}
	for _, section := range []string{"channels", "operations"} {
		oldM, newM := asMap(oldDoc[section]), asMap(newDoc[section])
		for name := range oldM {
			if _, ok := newM[name]; !ok {
				d.add("%s.%s removed", section, name)
			}
		}
	}
	comps, newComps := asMap(oldDoc["components"]), asMap(newDoc["components"])
	for _, kind := range []string{"messages", "schemas"} {
		oldM, newM := asMap(comps[kind]), asMap(newComps[kind])
		for name, o := range oldM {
			n, ok := newM[name]
			if !ok {
				d.add("components.%s.%s removed", kind, name)
				continue
			}
			if kind == "messages" {
				d.schema("components.messages."+name+".payload", asMap(o)["payload"], asMap(n)["payload"], 0)
			} else {
				d.schema("components.schemas."+name, o, n, 0)
			}
		}
	}
	sort.Strings(d.out)
	return d.out
}

type differ struct {
	oldRoot, newRoot map[string]any
	out              []string
}

func (d *differ) add(format string, args ...any) { d.out = append(d.out, fmt.Sprintf(format, args...)) }

// resolve follows a local $ref (#/a/b/c) within root.
func resolve(root map[string]any, v any) map[string]any {
	m := asMap(v)
	for i := 0; i < 10; i++ {
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return m
		}
		var cur any = root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cur = asMap(cur)[part]
		}
		m = asMap(cur)
	}
	return m
}

func (d *differ) schema(path string, oldV, newV any, depth int) {
	if depth > 12 {
		return
	}
	o, n := resolve(d.oldRoot, oldV), resolve(d.newRoot, newV)
	if fmt.Sprint(typesOf(o)) != fmt.Sprint(typesOf(n)) {
		d.add("%s: type changed from %v to %v", path, typesOf(o), typesOf(n))
	}
	if o["format"] != n["format"] {
		d.add("%s: format changed from %v to %v", path, o["format"], n["format"])
	}
	if o["const"] != n["const"] {
		d.add("%s: const changed from %v to %v", path, o["const"], n["const"])
	}
	if oe, ne := set(o["enum"]), set(n["enum"]); len(oe) > 0 || len(ne) > 0 {
		for v := range oe {
			if !ne[v] {
				d.add("%s: enum value %s removed", path, v)
			}
		}
		for v := range ne {
			if !oe[v] && len(oe) > 0 {
				d.add("%s: enum value %s added (strict consumers refuse it)", path, v)
			}
		}
	}
	for _, k := range []string{"minimum", "exclusiveMinimum", "minLength", "minItems"} {
		if num(n[k]) > num(o[k]) {
			d.add("%s: %s raised from %v to %v", path, k, o[k], n[k])
		}
	}
	for _, k := range []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems"} {
		if _, had := o[k]; (!had && n[k] != nil) || (had && n[k] != nil && num(n[k]) < num(o[k])) {
			d.add("%s: %s lowered from %v to %v", path, k, o[k], n[k])
		}
	}
	oReq, nReq := set(o["required"]), set(n["required"])
	for f := range nReq {
		if !oReq[f] {
			d.add("%s: %s became required", path, f)
		}
	}
	for f := range oReq {
		if !nReq[f] {
			d.add("%s: %s is no longer required", path, f)
		}
	}
	oProps, nProps := asMap(o["properties"]), asMap(n["properties"])
	for name, op := range oProps {
		np, ok := nProps[name]
		if !ok {
			d.add("%s.%s removed", path, name)
			continue
		}
		d.schema(path+"."+name, op, np, depth+1)
	}
	if o["items"] != nil {
		d.schema(path+"[]", o["items"], n["items"], depth+1)
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		ol, nl := asList(o[k]), asList(n[k])
		for i := range ol {
			if i >= len(nl) {
				d.add("%s.%s[%d] removed", path, k, i)
				continue
			}
			d.schema(fmt.Sprintf("%s.%s[%d]", path, k, i), ol[i], nl[i], depth+1)
		}
	}
}

func typesOf(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			out = append(out, fmt.Sprint(v))
		}
		sort.Strings(out)
		return out
	}
	return nil
}

func asMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func set(v any) map[string]bool {
	out := map[string]bool{}
	for _, x := range asList(v) {
		out[fmt.Sprint(x)] = true
	}
	return out
}

func num(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}
