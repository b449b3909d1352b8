// Package modelgw holds the model-connection client: chat completions and the stub provider.
package modelgw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/videotpl/platform/services/orgboard/internal/domain"
)

// message is one chat message on the wire.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Error is a failed call. It names the status and the kind of failure, never the key nor the
// upstream body (a gateway may echo what it was sent).
type Error struct {
	Status int // HTTP status; 0 when no response arrived
	Reason string
	// broken is set when the call did not get through (no answer in time, a broken
	// connection), as opposed to a connection that cannot be called at all.
	broken bool
}

// Retryable reports whether the same call may succeed later: the server was overloaded or
// failing (408, 429, 5xx) or the call did not get through.
func (e *Error) Retryable() bool {
	return e.broken || e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return "model call failed: " + e.Reason
	}
	return fmt.Sprintf("model call failed: status %d: %s", e.Status, e.Reason)
}

// Gateway calls model connections through the chat-completions interface
// ({endpoint}/v1/chat/completions) that hosted, local and self-hosted model servers and gateways
// share; the stub provider answers deterministically without a network (tests, demos). Keys
// travel only in request headers: no error, log line or result of a Gateway contains one.
type Gateway struct {
	client  *http.Client
	timeout time.Duration
}

// maxResponse bounds what is read from a model server.
const maxResponse = 8 << 20

// New returns a Gateway using client (give it the outbound policy's transport) with a time
// limit per call.
func New(client *http.Client, timeout time.Duration) *Gateway {
	return &Gateway{client: client, timeout: timeout}
}

var _ domain.ModelGateway = (*Gateway)(nil)

// Complete sends messages to conn and returns the first choice's text.
func (g *Gateway) Complete(ctx context.Context, conn domain.ModelConnection, messages []domain.ChatMessage) (domain.ModelAnswer, error) {
	if conn.Provider == domain.ProviderStub {
		return stubAnswer(conn.Model, messages), nil
	}
	if !domain.KnownProvider(conn.Provider) {
		return domain.ModelAnswer{}, &Error{Reason: fmt.Sprintf("unknown provider %q", conn.Provider)}
	}
	base := conn.Endpoint
	if base == "" {
		base = domain.DefaultEndpoint(conn.Provider)
	}
	if base == "" {
		return domain.ModelAnswer{}, &Error{Reason: "the connection has no endpoint"}
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()

	wire := make([]message, len(messages))
	for i, m := range messages {
		wire[i] = message(m)
	}
	body, err := json.Marshal(map[string]any{"model": conn.Model, "messages": wire, "stream": false})
	if err != nil {
		return domain.ModelAnswer{}, &Error{Reason: "encode request: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, completionsURL(conn.Provider, base), bytes.NewReader(body))
	if err != nil {
		return domain.ModelAnswer{}, &Error{Reason: "bad endpoint"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if conn.APIKey != "" {
		if conn.Provider == domain.ProviderAzureOpenAI {
			req.Header.Set("api-key", conn.APIKey)
		} else {
			req.Header.Set("Authorization", "Bearer "+conn.APIKey)
		}
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return domain.ModelAnswer{}, &Error{Reason: transportReason(ctx, err, conn.APIKey), broken: true}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return domain.ModelAnswer{}, &Error{Status: resp.StatusCode, Reason: "reading the answer failed", broken: true}
	}
	if resp.StatusCode/100 != 2 {
		return domain.ModelAnswer{}, &Error{Status: resp.StatusCode, Reason: upstreamKind(raw, conn.APIKey)}
	}
	if len(raw) > maxResponse {
		return domain.ModelAnswer{}, &Error{Status: resp.StatusCode, Reason: "the answer is too large"}
	}
	return parseAnswer(raw, conn.Model)
}

// completionsURL is {base}/v1/chat/completions; Gemini's compatible API lives at
// {base}/chat/completions under its versioned base.
func completionsURL(provider, base string) string {
	base = strings.TrimRight(base, "/")
	if provider == domain.ProviderGemini && strings.HasSuffix(base, "/openai") {
		return base + "/chat/completions"
	}
	return base + "/v1/chat/completions"
}

type completion struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

func parseAnswer(raw []byte, requested string) (domain.ModelAnswer, error) {
	var c completion
	if err := json.Unmarshal(raw, &c); err != nil {
		return domain.ModelAnswer{}, &Error{Status: http.StatusOK, Reason: "the answer is not chat-completions JSON"}
	}
	if len(c.Choices) == 0 {
		return domain.ModelAnswer{}, &Error{Status: http.StatusOK, Reason: "the answer has no choices"}
	}
	text, ok := contentText(c.Choices[0].Message.Content)
	if !ok {
		return domain.ModelAnswer{}, &Error{Status: http.StatusOK, Reason: "the answer's message has no text content"}
	}
	model := c.Model
	if model == "" {
		model = requested
	}
	return domain.ModelAnswer{Text: text, Model: model}, nil
}

// contentText reads a message content: a string, or an array of parts of which the text parts
// are joined.
func contentText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	found := false
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
			found = true
		}
	}
	return b.String(), found
}

// upstreamKind names an upstream error by its type or code only (never its message).
func upstreamKind(raw []byte, key string) string {
	var e struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		} `json:"error"`
	}
	reason := "the model server refused the request"
	if json.Unmarshal(raw, &e) == nil {
		switch {
		case e.Error.Type != "":
			reason += " (" + e.Error.Type + ")"
		case e.Error.Code != nil:
			reason += fmt.Sprintf(" (%v)", e.Error.Code)
		}
	}
	return redact(reason, key)
}

func transportReason(ctx context.Context, err error, key string) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "the model server did not answer in time"
	}
	return redact(err.Error(), key)
}

// redact removes the key from a message, should anything have echoed it.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// stubAnswer is the stub provider: a deterministic draft derived from the prompt alone.
func stubAnswer(model string, messages []domain.ChatMessage) domain.ModelAnswer {
	h := sha256.New()
	var last string
	for _, m := range messages {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Role, m.Content)
		if m.Role == "user" {
			last = m.Content
		}
	}
	if model == "" {
		model = "stub"
	}
	subject := firstLine(lastSection(last))
	text := fmt.Sprintf("Draft by the stub model %s for: %s\n\nThis is a deterministic placeholder answer (prompt digest %x).",
		model, subject, h.Sum(nil)[:6])
	return domain.ModelAnswer{Text: text, Model: model}
}

// lastSection is the text after the last Markdown heading line "# ..." (the work item).
func lastSection(s string) string {
	if i := strings.LastIndex(s, "\n# "); i >= 0 {
		rest := s[i+3:]
		if _, after, ok := strings.Cut(rest, "\n"); ok {
			return after
		}
	}
	return s
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#>*-` "))
		if line != "" {
			if utf8.RuneCountInString(line) > 120 {
				line = string([]rune(line)[:120]) + "…"
			}
			return line
		}
	}
	return "(empty prompt)"
}
