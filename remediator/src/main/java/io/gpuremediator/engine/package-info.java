/**
 * Decides each alert of a webhook: match a playbook, resolve the node, render every action, consult
 * the safety gate, then either record a dry-run or write the node once (optimistic concurrency) and
 * record its Events. Synchronous and blocking: callers run it off the event loop. See DESIGN.md.
 *
 * <p>Depends on {@code alert}, {@code playbook}, {@code action}, {@code node}, {@code state},
 * {@code decision}; no Vert.x, no fabric8.
 */
package io.gpuremediator.engine;
