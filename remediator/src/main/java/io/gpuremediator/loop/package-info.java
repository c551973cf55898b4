/**
 * The closed loop: carries each episode on after the webhook, through its long steps (drain, diagnose,
 * replace) and the steps after them, to its release; holds its Alertmanager silences and sends its
 * notifications. The stage, the cursor and the long step under way live in
 * the node's ledger, so a restart or a new leader resumes where the last one stopped; every write is
 * fenced by the node's resourceVersion and by leadership. Runs on its own threads, never the event
 * loop, and never takes the safety gate's lock or a lock shared between nodes.
 *
 * <p>Depends on the model ({@code playbook}, {@code state}, {@code decision}, {@code value}), the ports
 * ({@code node}, {@code workload}, {@code outbound}) and {@code action}; no Vert.x, no fabric8, no AWS SDK.
 */
package io.gpuremediator.loop;
