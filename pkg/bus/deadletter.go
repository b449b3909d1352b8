package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

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

// maxReasonLen keeps a recovered panic's stack from bloating the header.
const maxReasonLen = 2000

type permanentError struct{ err error }

func (p permanentError) Error() string { return "permanent: " + p.err.Error() }
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
	reason := cause.Error()
	if len(reason) > maxReasonLen {
		reason = reason[:maxReasonLen]
	}
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
