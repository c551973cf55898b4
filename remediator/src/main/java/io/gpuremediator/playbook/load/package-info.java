/**
 * Reading playbook files into the model: strict decoding (an unknown key is an error), every error
 * collected as {@code file:line: message}, file-name order, and an immutable
 * {@link io.gpuremediator.playbook.PlaybookSet} as the result. Each action kind's YAML (its parameters and the
 * phases it may be used in) is decoded here ({@code ActionDecoders}), so the action package never reads YAML.
 * No Vert.x, no fabric8.
 */
package io.gpuremediator.playbook.load;
