/**
 * The node actions: one {@link io.gpuremediator.action.ActionKind} class per kind, behind one
 * {@link io.gpuremediator.action.ActionRegistry}. Each kind decodes its playbook parameters, renders
 * and checks its templates before anything is written, and applies itself idempotently to a
 * {@link io.gpuremediator.action.NodeDraft}, recording in the node's ledger what it changed so that
 * an undo removes only what we added.
 *
 * <p>Depends on {@code playbook}, {@code node}, {@code state}, {@code decision} and {@code yaml};
 * no Vert.x, no fabric8.
 */
package io.gpuremediator.action;
