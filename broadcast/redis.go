package broadcast

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/topupd/topupd"
)

// Redis carries invalidations on Redis pub/sub; acknowledgements are
// pushed to a list per announcement.
type Redis struct {
	client  *redis.Client
	channel string
	prefix  string
	timeout time.Duration
	log     *slog.Logger
}

var _ topupd.Invalidations = (*Redis)(nil)

// NewRedis returns invalidations on client, under the deployment's key
// prefix; timeout bounds each call that is not a wait for
// acknowledgements.
func NewRedis(client *redis.Client, prefix string, timeout time.Duration, log *slog.Logger) *Redis {
	return &Redis{client: client, channel: prefix + "invalidate", prefix: prefix + "ack:", timeout: timeout, log: log}
}

// Announce publishes a fresh id and waits for as many acknowledgements as
// subscribers received it, at most within. When Redis fails it waits out
// within, since it cannot know who heard.
func (r *Redis) Announce(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	id := newID()
	pubCtx, pubCancel := context.WithTimeout(ctx, r.timeout)
	n, err := r.client.Publish(pubCtx, r.channel, id).Result()
	pubCancel()
	if err != nil {
		r.log.WarnContext(ctx, "invalidation not published: waiting out the cache's lifetime", "err", err)
		<-ctx.Done()
		return nil
	}
	for acked := int64(0); acked < n; acked++ {
		// BLPOP's own timeout, in seconds to the millisecond (go-redis's
		// BLPop would round it to whole seconds).
		wait := strconv.FormatFloat(max(time.Until(deadline).Seconds(), 0.001), 'f', 3, 64)
		if err := r.client.Do(ctx, "BLPOP", r.prefix+id, wait).Err(); err != nil {
			if !errors.Is(err, redis.Nil) && ctx.Err() == nil {
				r.log.WarnContext(ctx, "waiting for invalidations to be acknowledged", "err", err)
				<-ctx.Done()
			}
			r.log.WarnContext(ctx, "invalidation not acknowledged by every node: waited out the cache's lifetime", "heard", n, "acknowledged", acked)
			return nil
		}
	}
	return nil
}

// Listen subscribes and, on each announcement, forgets and acknowledges.
// It hears once the subscription is confirmed, and stops hearing (and
// forgets) when the connection fails, until it is subscribed again.
func (r *Redis) Listen(ctx context.Context, forget func(), hearing func(bool)) {
	sub := r.client.Subscribe(ctx, r.channel)
	stopped := context.AfterFunc(ctx, func() { sub.Close() }) // a read in progress ends at once
	defer func() {
		if stopped() {
			sub.Close()
		}
	}()
	down := func() {
		hearing(false)
		forget()
	}
	for ctx.Err() == nil {
		msg, err := sub.ReceiveTimeout(ctx, pingEvery)
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				forget() // word sent while this node was not subscribed is lost
				hearing(true)
			}
		case *redis.Message:
			forget()
			r.acknowledge(ctx, m.Payload)
		}
		if err == nil || ctx.Err() != nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			if err := sub.Ping(ctx); err == nil {
				continue
			}
		}
		down()
		r.log.WarnContext(ctx, "invalidations: the Redis subscription failed; resubscribing", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(reconnectDelay):
		}
	}
	hearing(false)
}

// acknowledge answers an announcement; the list lapses soon after.
func (r *Redis) acknowledge(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.RPush(ctx, r.prefix+id, 1)
		p.Expire(ctx, r.prefix+id, time.Minute)
		return nil
	})
	if err != nil {
		r.log.WarnContext(ctx, "invalidations: acknowledging", "err", err)
	}
}
