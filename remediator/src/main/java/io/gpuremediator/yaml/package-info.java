/**
 * Strict, line-numbered reading of YAML files: every problem becomes one {@code file:line: message}
 * line, unknown and duplicate keys are errors, and nothing is coerced silently.
 *
 * <p>Shared by the service config and the playbook loader. Depends on SnakeYAML and the JDK only.
 */
package io.gpuremediator.yaml;
