/**
 * The composition root of the running service: builds the cluster adapter, playbook reloader,
 * engine, metrics and HTTP server from a config, starts them in order and stops them. Used by the
 * {@code serve} command and by tests that run the whole service against a mock API server.
 */
package io.gpuremediator.service;
