/**
 * The outbound HTTP clients, on Vert.x {@code WebClient} with timeouts: Alertmanager's silences API v2, the notification receivers (Slack-compatible and generic JSON webhooks) and BMCs' Redfish resets (HTTPS, verified
 * against a configured CA). Every request is counted by target and outcome.
 *
 * <p>Uses: {@code outbound}; libraries: {@code io.vertx}.
 */
package io.gpuremediator.outbound.http;
