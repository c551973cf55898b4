/**
 * Immutable values for the content of an Alertmanager webhook (version 4): the message and its alerts. No JSON
 * library, no Vert.x: the {@code http} package decodes into these.
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.alert;
