/**
 * Strict, line-numbered reading of YAML files: every problem becomes one {@code file:line: message} line,
 * unknown and duplicate keys are errors, and nothing is coerced silently. Shared by the service config and the playbook
 * loader.
 *
 * <p>Uses: no other package of ours; libraries: {@code org.yaml}.
 */
package io.gpuremediator.yaml;
