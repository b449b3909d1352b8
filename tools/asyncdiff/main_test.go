package main

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const base = `
asyncapi: 3.0.0
channels:
  events: {address: events}
components:
  schemas:
    Job:
      type: object
      required: [id]
      properties:
        id: {type: string, format: uuid}
        step: {type: string, enum: [Queued, Done]}
        progress: {type: integer, minimum: 0, maximum: 100}
        note: {type: string}
`

func doc(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiffClassifiesChanges(t *testing.T) {
	cases := []struct {
		name, from, to, want string // want "" means not breaking
	}{
		{"an optional property added", "note: {type: string}", "note: {type: string}\n        extra: {type: string}", ""},
		{"a property removed", "        note: {type: string}\n", "", "Job.note removed"},
		{"a field newly required", "required: [id]", "required: [id, step]", "step became required"},
		{"a required field dropped", "required: [id]", "required: []", "id is no longer required"},
		{"an enum value removed", "enum: [Queued, Done]", "enum: [Queued]", "enum value Done removed"},
		{"a range narrowed", "maximum: 100", "maximum: 50", "maximum lowered"},
		{"a format changed", "format: uuid", "format: date-time", "format changed"},
		{"a type changed", "progress: {type: integer", "progress: {type: string", "type changed"},
		{"a channel removed", "  events: {address: events}\n", "  other: {address: other}\n", "channels.events removed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := strings.Replace(base, c.from, c.to, 1)
			if changed == base {
				t.Fatalf("test case did not change the document")
			}
			got := strings.Join(Diff(doc(t, base), doc(t, changed)), "\n")
			if c.want == "" && got != "" {
				t.Fatalf("want no breaking change, got:\n%s", got)
			}
			if c.want != "" && !strings.Contains(got, c.want) {
				t.Fatalf("want %q among:\n%s", c.want, got)
			}
		})
	}
}
