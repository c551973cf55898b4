/**
 * The record of what the remediator decided for one alert: outcome, stable reason code, and each step with its
 * outcome and the change made or that would be made; plus the bounded in-memory log that serves
 * {@code GET /api/v1/decisions}.
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.decision;
