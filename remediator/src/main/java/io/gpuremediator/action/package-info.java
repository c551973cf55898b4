/**
 * The step kinds: one class per kind ({@link io.gpuremediator.action.ActionKind}) behind one
 * {@link io.gpuremediator.action.ActionRegistry} row each. A kind decodes and checks its YAML, renders its templates
 * for one alert before anything is written, applies itself idempotently to a {@link io.gpuremediator.action.NodeDraft}
 * (recording in the node's ledger what it changed, so that an undo removes only what we added), and, for a long step
 * ({@link io.gpuremediator.action.LongStep}), starts, looks and cancels in the background with stages of its own.
 *
 * <p>Uses: {@code decision}, {@code device}, {@code node}, {@code outbound}, {@code playbook}, {@code safety}, {@code state},
 * {@code value}, {@code verdict}, {@code workload}, {@code yaml}; libraries: {@code org.yaml}.
 */
package io.gpuremediator.action;
