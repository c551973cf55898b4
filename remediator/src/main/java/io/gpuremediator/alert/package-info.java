/**
 * Immutable values for the content of an Alertmanager webhook (version 4): the message and its
 * alerts. No JSON library, no Vert.x: the {@code webhook} package decodes into these. JDK only.
 */
package io.gpuremediator.alert;
