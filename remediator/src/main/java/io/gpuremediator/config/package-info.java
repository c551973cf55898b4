/**
 * The service config ({@code remediator.yaml}, snake_case keys): an immutable
 * {@link io.gpuremediator.config.RemediatorConfig} decoded strictly, with every problem reported as
 * {@code file:line: message}. Relative paths are resolved against the config file's directory.
 *
 * <p>Uses: {@code action}, {@code device}, {@code node}, {@code outbound}, {@code playbook}, {@code safety}, {@code state},
 * {@code sweep}, {@code value}, {@code yaml}; libraries: {@code org.yaml}.
 */
package io.gpuremediator.config;
