/**
 * The HTTP server: routes, bearer-token auth (the full token, and a read-only one for the reads), the body
 * limit, content-type checks, the read APIs ({@code /api/v1/decisions}, {@code /api/v1/nodes},
 * {@code /api/v1/safety}), the status page at {@code /} (also alone, without a token, on {@code status_listen}),
 * {@code /metrics} and the probes. Handlers never block the event loop. Depends on {@code webhook},
 * {@code decision}, {@code node}, {@code metrics},
 * Vert.x Web and the Prometheus text exposition.
 */
package io.gpuremediator.http;
