/**
 * Structured Streaming over Floe tables: the exactly-once sink ({@link
 * io.floe.spark.streaming.FloeStreamingWrite}, one snapshot per epoch) and the micro-batch source
 * over appended snapshots. Built on the {@code read}, {@code write} and {@code commit} packages;
 * the table wires it in through {@link io.floe.spark.streaming.FloeStreaming}, so those packages
 * never import this one. See docs/streaming.md.
 */
package io.floe.spark.streaming;
