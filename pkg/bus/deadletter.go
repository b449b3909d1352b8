package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ThreeDotsLabs/watermill/message"
)

// Metadata (AMQP headers) a dead letter carries besides the original ones.
const (
	MetaDeadLetterReason    = "dead_letter_reason"
	MetaDeadLetterPermanent = "dead_letter_permanent"
	MetaDeadLetterAttempts  = "dead_letter_attempts"
	MetaDeadLetterHandler   = "dead_letter_handler"
	MetaDeadLetterAt        = "dead_letter_at"
)

// maxReasonLen bounds the reason header in bytes, so a recovered panic's stack or a long
// validation report cannot bloat it.
const maxReasonLen = 1024

type permanentError struct{ err error }

// Error is the cause's message: whether an error is permanent is a header of its own.
func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent marks err as one that no retry can fix (schema-invalid data, a poison
// message): the message goes to the dead-letter queue at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err, or an error it wraps, was marked Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// deadLetters publishes the messages a consumer gives up on to the service's dead-letter
// queue, with why in their headers.
type deadLetters struct {
	pub     message.Publisher
	queue   string
	metrics Metrics
	log     *slog.Logger
}

// send publishes msg with the reason (cause, shortened), whether cause is Permanent, the
// handler that gave up and when; the caller has numbered the attempts. Only a published
// dead letter may be acknowledged: on an error the message must go back to its queue.
func (d deadLetters) send(msg *message.Message, cause error, handler string) error {
	reason := reasonOf(cause)
	msg.Metadata.Set(MetaDeadLetterReason, reason)
	msg.Metadata.Set(MetaDeadLetterPermanent, strconv.FormatBool(IsPermanent(cause)))
	msg.Metadata.Set(MetaDeadLetterHandler, handler)
	msg.Metadata.Set(MetaDeadLetterAt, time.Now().UTC().Format(time.RFC3339Nano))
	if err := d.pub.Publish(d.queue, msg); err != nil {
		return fmt.Errorf("dead-letter to %s: %w", d.queue, err)
	}
	d.metrics.DeadLettered(eventType(msg))
	d.log.WarnContext(msg.Context(), "message dead-lettered", "queue", d.queue, "message_uuid", msg.UUID,
		"event_type", eventType(msg), "reason", reason, "permanent", IsPermanent(cause))
	return nil
}

// reasonOf is the one-line form of err that a dead letter carries (AMQP header values are
// read as one line): its lines are joined with "; ", other control characters become
// spaces and runs of spaces one, a prefix the error chain repeats ("invalid event: invalid
// event: ...") appears once, and the text is cut to maxReasonLen bytes on a character
// boundary.
func reasonOf(err error) string {
	lines := strings.FieldsFunc(err.Error(), func(r rune) bool { return r == '\n' || r == '\r' })
	s := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.Join(lines, "; "))
	s = strings.Join(strings.Fields(s), " ")
	parts := strings.Split(s, ": ")
	kept := parts[:1]
	for _, p := range parts[1:] {
		if p != kept[len(kept)-1] {
			kept = append(kept, p)
		}
	}
	s = strings.Join(kept, ": ")
	if len(s) > maxReasonLen {
		const ellipsis = "…"
		n := maxReasonLen - len(ellipsis)
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + ellipsis
	}
	return s
}
