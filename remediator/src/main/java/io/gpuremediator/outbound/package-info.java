/**
 * What the episode engine asks of the world outside Kubernetes, as ports: Alertmanager silences held while an
 * episode lasts, notifications to people, marking a cloud instance unhealthy so its group replaces it, and rebooting an
 * instance or a server through its BMC. The model only (records, interfaces, the providerID parser); the Vert.x clients live in
 * {@code outbound.http}, the AWS SDK only in {@code outbound.aws}.
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.outbound;
