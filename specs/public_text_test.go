package specs

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// buildHistory matches words that tell how the contract came to be rather than how the API
// behaves: references to the interface documents (seeds) and to design decisions. The
// OpenAPI documents are held to the same rule by redocly.yaml (rule/no-build-history).
var buildHistory = regexp.MustCompile(`(?i)\b(seeds?|decisions?|interface documents?|issue #?\d+)\b`)

// publicTextKeys are the members whose text the readers of the documentation see.
var publicTextKeys = map[string]bool{"description": true, "summary": true, "title": true}

func TestPublicTextSpeaksToAPIUsersNotAboutBuildHistory(t *testing.T) {
	for _, doc := range []string{"asyncapi/events.yaml", "openapi/content.yaml", "openapi/orgboard.yaml", "openapi/renderevents.yaml"} {
		t.Run(doc, func(t *testing.T) {
			raw, err := os.ReadFile(specPath(doc))
			if err != nil {
				t.Fatal(err)
			}
			var root yaml.Node
			if err := yaml.Unmarshal(raw, &root); err != nil {
				t.Fatal(err)
			}
			for _, hit := range historyInText(&root) {
				t.Errorf("line %d: %q speaks of how the contract was made; describe the behaviour instead", hit.line, hit.words)
			}
		})
	}
}

func TestTheBuildHistoryCheckFindsDecisionsAndSeedsInNestedText(t *testing.T) {
	doc := `
info:
  description: Lists things.
paths:
  /a:
    get:
      summary: Decision - sorted by name
      parameters:
        - description: as the seed says
  /b:
    get:
      description: Ids are UUIDs.
`
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	hits := historyInText(&root)
	if len(hits) != 2 || hits[0].line != 7 || hits[1].line != 9 {
		t.Fatalf("hits = %+v, want lines 7 and 9", hits)
	}
}

type historyHit struct {
	line  int
	words string
}

// historyInText walks a YAML document and returns the public texts that mention build history.
func historyInText(n *yaml.Node) []historyHit {
	var hits []historyHit
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			hits = append(hits, historyInText(c)...)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if publicTextKeys[key.Value] && value.Kind == yaml.ScalarNode {
				if m := buildHistory.FindAllString(value.Value, -1); len(m) > 0 {
					hits = append(hits, historyHit{line: value.Line, words: strings.Join(m, ", ")})
				}
				continue
			}
			hits = append(hits, historyInText(value)...)
		}
	}
	return hits
}
