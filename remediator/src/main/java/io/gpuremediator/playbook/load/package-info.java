/**
 * Reading playbook files into the model: strict decoding (an unknown key is an error), every error
 * collected as {@code file:line: message}, file-name order, and an immutable
 * {@link io.gpuremediator.playbook.PlaybookSet} as the result. Each step's own parameters are decoded by its kind,
 * reached through {@link io.gpuremediator.action.ActionRegistry}.
 *
 * <p>Uses: {@code action}, {@code playbook}, {@code value}, {@code yaml}; libraries: {@code org.slf4j},
 * {@code org.yaml}.
 */
package io.gpuremediator.playbook.load;
