package bus

import "time"

// EnvConfig is the bus's part of a service's environment, one variable per knob with its
// default written here once; a service embeds it in its configuration struct (pkg/config
// reads and documents it) and turns it into a Config with BusConfig.
type EnvConfig struct {
	AMQPURL            string `env:"AMQP_URL" envDefault:"amqp://guest:guest@127.0.0.1:5672/" desc:"RabbitMQ connection URL" secret:"true"`
	Service            string `env:"BUS_SERVICE" desc:"prefix of the service's queues <name>.events and <name>.dead-letter; unset: the service's name"`
	EventsExchange     string `env:"EVENTS_EXCHANGE" envDefault:"events" desc:"durable topic exchange of the events (routing key = event name)"`
	DeadLetterExchange string `env:"DEAD_LETTER_EXCHANGE" envDefault:"dead-letter" desc:"durable direct exchange of the dead-letter queues"`
	ConsumerMaxRetries int    `env:"CONSUMER_MAX_RETRIES" envDefault:"5" desc:"retries of a failing message before it is dead-lettered"`
	QueueType          string `env:"BUS_QUEUE_TYPE" envDefault:"quorum" desc:"type of the durable queues <name>.events and <name>.dead-letter: quorum (replicated) or classic; an existing queue of the other type must be drained and deleted first"`
}

// BusConfig is the bus configuration of the service called name, which names its queues
// unless BUS_SERVICE does.
func (e EnvConfig) BusConfig(name string) Config {
	if e.Service != "" {
		name = e.Service
	}
	return Config{
		AMQPURL:            e.AMQPURL,
		Service:            name,
		EventsExchange:     e.EventsExchange,
		DeadLetterExchange: e.DeadLetterExchange,
		QueueType:          QueueType(e.QueueType),
		Retry:              RetryConfig{MaxRetries: e.ConsumerMaxRetries},
	}
}

// ProgressEnvConfig is the environment of a service that relays job progress.
type ProgressEnvConfig struct {
	ProgressExchange string `env:"PROGRESS_EXCHANGE" envDefault:"render.progress" desc:"auto-delete fanout exchange of job progress; each instance reads it through its own <name>.progress.<instance> queue"`
}

// BatchEnvConfig is the environment of a service that applies its events in batches
// (BatchConsumer).
type BatchEnvConfig struct {
	ConsumerBatchSize        int           `env:"CONSUMER_BATCH_SIZE" envDefault:"1024" desc:"most events applied in one database transaction"`
	ConsumerBatchWait        time.Duration `env:"CONSUMER_BATCH_WAIT" envDefault:"20ms" desc:"how long a batch waits to fill up after its first event (bounds the read model lag it adds)"`
	ConsumerBatchConcurrency int           `env:"CONSUMER_BATCH_CONCURRENCY" envDefault:"2" desc:"database transactions a batch is split into (by tenant) and applied at once; the batch is acknowledged when all have committed"`
	ConsumerPrefetch         int           `env:"CONSUMER_PREFETCH" envDefault:"4096" desc:"AMQP prefetch count: deliveries an instance holds unacknowledged on each of its queues"`
	ConsumerReadyGrace       time.Duration `env:"CONSUMER_READY_GRACE" envDefault:"2m" desc:"how long the service stays ready (/readyz) after its events consumer lost the broker; a longer outage makes it not ready until the consumer is back (bus_connected shows the loss at once); negative: the broker never affects readiness"`
}

// BatchConfig is the batch size, wait and concurrency.
func (b BatchEnvConfig) BatchConfig() BatchConfig {
	return BatchConfig{Size: b.ConsumerBatchSize, Wait: b.ConsumerBatchWait, Concurrency: b.ConsumerBatchConcurrency}
}
