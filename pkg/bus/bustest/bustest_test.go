package bustest_test

import (
	"errors"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/videotpl/platform/pkg/bus"
	"github.com/videotpl/platform/pkg/bus/bustest"
)

func TestATestsQueuesAndExchangesAreGoneWhenItEnds(t *testing.T) {
	var cfg bus.Config
	t.Run("a test using the broker", func(t *testing.T) {
		cfg = bustest.Config(t)
		ch := bustest.Channel(t)
		if err := bus.DeclareServiceQueue(ch, cfg, "test.#"); err != nil {
			t.Fatal(err)
		}
		if err := bus.DeclareDeadLetterQueue(ch, cfg); err != nil {
			t.Fatal(err)
		}
		bustest.PublishRaw(t, cfg.EventsExchange, "test.thing.v1", amqp.Publishing{Body: []byte(`{}`)})
		if got := bustest.Read(t, ch, cfg.ServiceQueue(), 1, 5*time.Second); string(got[0].Body) != `{}` {
			t.Fatalf("read %q from the service queue", got[0].Body)
		}
	})

	notFound := func(what string, declare func(*amqp.Channel) error) {
		t.Helper()
		var amqpErr *amqp.Error
		if err := declare(bustest.Channel(t)); !errors.As(err, &amqpErr) || amqpErr.Code != amqp.NotFound {
			t.Errorf("%s after the test: %v, want not found", what, err)
		}
	}
	for _, q := range []string{cfg.ServiceQueue(), cfg.DeadLetterQueue()} {
		notFound("queue "+q, func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclarePassive(q, true, false, false, false, nil)
			return err
		})
	}
	for _, ex := range []string{cfg.EventsExchange, cfg.DeadLetterExchange} {
		notFound("exchange "+ex, func(ch *amqp.Channel) error {
			return ch.ExchangeDeclarePassive(ex, amqp.ExchangeTopic, true, false, false, false, nil)
		})
	}
}
