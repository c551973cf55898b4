/**
 * The service config ({@code remediator.yaml}, snake_case keys): an immutable
 * {@link io.gpuremediator.config.RemediatorConfig} decoded strictly, with every problem reported as
 * {@code file:line: message}. Relative paths are resolved against the config file's directory.
 * Depends on {@code yaml}, {@code value} and {@code node} (label selectors); no Vert.x, no fabric8.
 */
package io.gpuremediator.config;
