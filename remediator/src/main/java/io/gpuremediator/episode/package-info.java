/**
 * The episode engine: every change to an episode's life, whoever asks for it. The webhook's alerts are decided
 * here (match a playbook, resolve the node, render every step, consult the safety gate, then record a dry-run or write
 * the node once); the background loop carries each episode on through its long steps to its release; a human's release
 * and retry go through the same {@link io.gpuremediator.episode.Transition transitions}. The stage, the cursor and the
 * long step under way live in the node's ledger, so a restart or a new leader resumes where the last one stopped; every
 * write is fenced by the node's resourceVersion and by leadership; one node is changed by one thread at a time. See
 * docs/episodes.md.
 *
 * <p>Uses: {@code action}, {@code alert}, {@code bounded}, {@code decision}, {@code device}, {@code metrics}, {@code node},
 * {@code outbound}, {@code playbook}, {@code safety}, {@code state}, {@code threads}, {@code value}, {@code workload};
 * libraries: {@code org.slf4j}.
 */
package io.gpuremediator.episode;
