// Command asyncdiff compares two AsyncAPI documents. By default it reports the breaking
// changes and exits 1 when there is any. Breaking, for an event catalogue read by consumers
// who validate strictly: a channel, message or schema property removed; a type or format
// changed; a field newly required or no longer required; an enum value removed, or added
// where a consumer can receive it (not to a property a message fixes with a const, such as
// the producer of each message); a bound tightened. Adding an optional property, a message or a channel is not breaking.
// An upper bound (maximum, maxLength, maxItems) set on a field that had none is possibly
// breaking, as oasdiff rates a first bound on a request property: a producer sending larger
// values must keep within it. It is printed after the breaking changes, each line starting
// "possibly breaking: ", and does not fail the check.
//
// With -changelog it prints every change instead, as Markdown list items for a changelog:
// messages, channels and operations added or removed, and each message's payload fields
// added, removed or changed, the breaking ones marked. It exits 0 then.
//
//	asyncdiff [-changelog] old.yaml new.yaml
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

func main() {
	changelog := flag.Bool("changelog", false, "print every change as Markdown list items (breaking ones marked) and exit 0")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: asyncdiff [-changelog] old.yaml new.yaml")
		os.Exit(2)
	}
	oldDoc, err := load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	newDoc, err := load(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *changelog {
		for _, line := range Changelog(oldDoc, newDoc) {
			fmt.Println(line)
		}
		return
	}
	changes := Diff(oldDoc, newDoc)
	for _, c := range changes {
		fmt.Println(c)
	}
	for _, w := range Warnings(oldDoc, newDoc) {
		fmt.Println("possibly breaking: " + w)
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
func Diff(oldDoc, newDoc map[string]any) []string { return compare(oldDoc, newDoc, breaking) }

// Warnings lists the possibly breaking changes from oldDoc to newDoc, sorted.
func Warnings(oldDoc, newDoc map[string]any) []string {
	return compare(oldDoc, newDoc, possiblyBreaking)
}

// compare lists the changes of one level from oldDoc to newDoc, sorted.
func compare(oldDoc, newDoc map[string]any, level level) []string {
	d := differ{oldRoot: oldDoc, newRoot: newDoc}
	d.sections()
	comps, newComps := asMap(oldDoc["components"]), asMap(newDoc["components"])
	for _, kind := range []string{"messages", "schemas"} {
		oldM, newM := asMap(comps[kind]), asMap(newComps[kind])
		for name, o := range oldM {
			n, ok := newM[name]
			if !ok {
				d.add(true, "components.%s.%s removed", kind, name)
				continue
			}
			d.inMessages = kind == "messages"
			if kind == "messages" {
				d.schema("components.messages."+name+".payload", asMap(o)["payload"], asMap(n)["payload"], 0)
			} else {
				d.schema("components.schemas."+name, o, n, 0)
			}
		}
	}
	var out []string
	for _, c := range d.out {
		if c.level == level {
			out = append(out, c.text)
		}
	}
	sort.Strings(out)
	return out
}

// allOfStep is a step into an allOf member; a changelog reader sees the merged payload, so
// the step is left out of the field paths it prints.
var allOfStep = regexp.MustCompile(`\.allOf\[\d+\]([.\[])`)

// Changelog lists every change from oldDoc to newDoc as Markdown list items, sorted: the
// channels and operations added or removed, and per message (by its name, the routing key)
// the message added or removed or its payload fields added, removed or changed. Breaking
// changes, the ones Diff reports, end in "(breaking)"; the ones Warnings reports in
// "(possibly breaking)".
func Changelog(oldDoc, newDoc map[string]any) []string {
	d := differ{oldRoot: oldDoc, newRoot: newDoc, inMessages: true}
	d.sections()
	oldMsgs := asMap(asMap(oldDoc["components"])["messages"])
	newMsgs := asMap(asMap(newDoc["components"])["messages"])
	for key, o := range oldMsgs {
		n, ok := newMsgs[key]
		if !ok {
			d.add(true, "message %s removed", messageName(key, o))
			continue
		}
		d.schema("message "+messageName(key, n)+": payload", asMap(o)["payload"], asMap(n)["payload"], 0)
	}
	for key, n := range newMsgs {
		if _, ok := oldMsgs[key]; !ok {
			d.add(false, "message %s added", messageName(key, n))
		}
	}
	out := make([]string, 0, len(d.out))
	for _, c := range d.out {
		line := "- " + allOfStep.ReplaceAllString(c.text, "$1")
		switch c.level {
		case breaking:
			line += " (breaking)"
		case possiblyBreaking:
			line += " (possibly breaking)"
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// messageName is the message's name (the event name consumers bind to), else its component key.
func messageName(key string, msg any) string {
	if name, ok := asMap(msg)["name"].(string); ok && name != "" {
		return name
	}
	return key
}

// level rates a change: breaking ones fail the check, possibly breaking ones are reported.
type level int

const (
	compatible level = iota
	possiblyBreaking
	breaking
)

// change is one difference between the documents.
type change struct {
	text  string
	level level
}

type differ struct {
	oldRoot, newRoot map[string]any
	out              []change
	// inMessages is set while a message's payload is compared: an enum value added breaks a
	// consumer only where it can receive it, so the comparison of the component schemas
	// leaves that rating to the messages that use them.
	inMessages bool
	// pinned holds the paths of properties whose value a sibling allOf member fixes with a
	// const (e.g. the producer of each message): a value added to their enum never reaches a
	// consumer of that message.
	pinned map[string]bool
}

func (d *differ) add(isBreaking bool, format string, args ...any) {
	l := compatible
	if isBreaking {
		l = breaking
	}
	d.out = append(d.out, change{text: fmt.Sprintf(format, args...), level: l})
}

func (d *differ) warn(format string, args ...any) {
	d.out = append(d.out, change{text: fmt.Sprintf(format, args...), level: possiblyBreaking})
}

// sections records the channels and operations removed (breaking) or added.
func (d *differ) sections() {
	for _, section := range []string{"channels", "operations"} {
		oldM, newM := asMap(d.oldRoot[section]), asMap(d.newRoot[section])
		for name := range oldM {
			if _, ok := newM[name]; !ok {
				d.add(true, "%s.%s removed", section, name)
			}
		}
		for name := range newM {
			if _, ok := oldM[name]; !ok {
				d.add(false, "%s.%s added", section, name)
			}
		}
	}
}

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
		d.add(true, "%s: type changed from %v to %v", path, typesOf(o), typesOf(n))
	}
	if o["format"] != n["format"] {
		d.add(true, "%s: format changed from %v to %v", path, o["format"], n["format"])
	}
	if o["const"] != n["const"] {
		d.add(true, "%s: const changed from %v to %v", path, o["const"], n["const"])
	}
	if oe, ne := set(o["enum"]), set(n["enum"]); len(oe) > 0 || len(ne) > 0 {
		for v := range oe {
			if !ne[v] {
				d.add(true, "%s: enum value %s removed", path, v)
			}
		}
		for v := range ne {
			switch {
			case oe[v] || len(oe) == 0:
			case d.inMessages && !d.pinned[path]:
				d.add(true, "%s: enum value %s added (strict consumers refuse it)", path, v)
			case d.pinned[path]:
				d.add(false, "%s: enum value %s added (the message fixes the value with a const)", path, v)
			default:
				d.add(false, "%s: enum value %s added", path, v)
			}
		}
	}
	for _, k := range []string{"minimum", "exclusiveMinimum", "minLength", "minItems"} {
		switch {
		case num(n[k]) > num(o[k]):
			d.add(true, "%s: %s raised from %v to %v", path, k, o[k], n[k])
		case num(n[k]) < num(o[k]):
			d.add(false, "%s: %s lowered from %v to %v", path, k, o[k], n[k])
		}
	}
	for _, k := range []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems"} {
		_, had := o[k]
		switch {
		case !had && n[k] != nil:
			d.warn("%s: %s set to %v (there was none)", path, k, n[k])
		case had && n[k] != nil && num(n[k]) < num(o[k]):
			d.add(true, "%s: %s lowered from %v to %v", path, k, o[k], n[k])
		case had && n[k] == nil:
			d.add(false, "%s: %s %v removed", path, k, o[k])
		case had && num(n[k]) > num(o[k]):
			d.add(false, "%s: %s raised from %v to %v", path, k, o[k], n[k])
		}
	}
	oReq, nReq := set(o["required"]), set(n["required"])
	for f := range nReq {
		if !oReq[f] {
			d.add(true, "%s: %s became required", path, f)
		}
	}
	for f := range oReq {
		if !nReq[f] {
			d.add(true, "%s: %s is no longer required", path, f)
		}
	}
	oProps, nProps := asMap(o["properties"]), asMap(n["properties"])
	for name, op := range oProps {
		np, ok := nProps[name]
		if !ok {
			d.add(true, "%s.%s removed", path, name)
			continue
		}
		d.schema(path+"."+name, op, np, depth+1)
	}
	for name := range nProps {
		if _, ok := oProps[name]; !ok {
			d.add(false, "%s.%s added", path, name)
		}
	}
	if o["items"] != nil {
		d.schema(path+"[]", o["items"], n["items"], depth+1)
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		ol, nl := asList(o[k]), asList(n[k])
		if k == "allOf" {
			d.pinConsts(path, nl)
		}
		for i := range ol {
			if i >= len(nl) {
				d.add(true, "%s.%s[%d] removed", path, k, i)
				continue
			}
			d.schema(fmt.Sprintf("%s.%s[%d]", path, k, i), ol[i], nl[i], depth+1)
		}
		for i := len(ol); i < len(nl); i++ {
			d.add(false, "%s.%s[%d] added", path, k, i)
		}
	}
}

// pinConsts marks, in every member of the allOf list members at path, the properties that one
// of the members fixes with a const in the new document.
func (d *differ) pinConsts(path string, members []any) {
	var names []string
	for _, m := range members {
		for name, p := range asMap(resolve(d.newRoot, m)["properties"]) {
			if _, ok := asMap(p)["const"]; ok {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return
	}
	if d.pinned == nil {
		d.pinned = map[string]bool{}
	}
	for i := range members {
		for _, name := range names {
			d.pinned[fmt.Sprintf("%s.allOf[%d].%s", path, i, name)] = true
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
