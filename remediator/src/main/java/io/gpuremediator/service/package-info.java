/**
 * The composition root of the running service: builds the cluster adapter, playbook reloader, safety gate,
 * episode engine, outside ports, metrics and HTTP servers from a config, starts them in order and stops them. Used by
 * the {@code serve} command and by the tests that run the whole service.
 *
 * <p>Uses: {@code action}, {@code config}, {@code decision}, {@code device}, {@code episode}, {@code http}, {@code kube},
 * {@code maintenance}, {@code metrics}, {@code node}, {@code outbound}, {@code outbound.aws}, {@code outbound.http},
 * {@code playbook}, {@code sweep},
 * {@code playbook.load}, {@code safety}, {@code threads}; libraries: {@code io.prometheus},
 * {@code io.vertx}, {@code org.slf4j}.
 */
package io.gpuremediator.service;
