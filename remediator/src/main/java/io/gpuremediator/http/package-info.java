/**
 * The HTTP edge: the Alertmanager webhook (version 4) with its strict streaming decoder (bounded nesting, no
 * duplicate keys, the offending field named in every error), routes, bearer-token auth (the full token, and a read-only
 * one for the reads), the body limit, content-type checks, the read APIs ({@code /api/v1/decisions},
 * {@code /api/v1/nodes}, {@code /api/v1/safety}, the fleet map's {@code /api/v1/fleet}), the human controls, the status page at {@code /} (also alone, without
 * a token, on {@code status_listen}), {@code /metrics} and the probes. Handlers never block the event loop.
 *
 * <p>Uses: {@code alert}, {@code bounded}, {@code decision}, {@code episode}, {@code maintenance}, {@code metrics},
 * {@code node}, {@code outbound}, {@code safety}, {@code state}, {@code sweep}, {@code value}, {@code yaml}; libraries: {@code com.fasterxml.jackson.core}, {@code io.prometheus},
 * {@code io.vertx}, {@code org.slf4j}.
 */
package io.gpuremediator.http;
