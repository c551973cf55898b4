/**
 * What the closed loop asks of the world outside Kubernetes, as ports: Alertmanager silences held while an
 * episode lasts, notifications to people, and marking a cloud instance unhealthy so its group replaces it.
 * The model only (records, interfaces, the providerID parser); the Vert.x clients live in
 * {@code outbound.http}, the AWS SDK only in {@code outbound.aws}.
 */
package io.gpuremediator.outbound;
