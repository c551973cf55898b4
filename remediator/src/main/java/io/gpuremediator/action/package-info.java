/**
 * The node actions: one {@link io.gpuremediator.action.ActionKind} class per kind, behind one
 * {@link io.gpuremediator.action.ActionRegistry}. Each kind renders and checks its templates (the spec
 * decoded by {@code playbook.load}) before anything is written, and applies itself idempotently to a
 * {@link io.gpuremediator.action.NodeDraft}, recording in the node's ledger what it changed so that
 * an undo removes only what we added.
 *
 * <p>Depends on {@code playbook}, {@code node}, {@code state} and {@code decision}; no YAML, no Vert.x,
 * no fabric8 (the rules per package are in {@code arch/PackageRulesTest}).
 */
package io.gpuremediator.action;
