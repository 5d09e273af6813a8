-- The order's history: each step of an order after it was placed, written
-- in the transaction that takes it: a submit started (submitting), a
-- supplier call that left it processing (retry, with why), an operator's
-- retry (retried), and its end (completed, cancelled). The placement and,
-- for orders settled before this table, the end are read from the order row.

-- +goose Up
CREATE TABLE order_events (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_seq BIGINT NOT NULL REFERENCES orders (seq),
    at        BIGINT NOT NULL,
    kind      TEXT NOT NULL,
    note      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX order_events_order ON order_events (order_seq, at);

-- +goose Down
DROP TABLE order_events;
