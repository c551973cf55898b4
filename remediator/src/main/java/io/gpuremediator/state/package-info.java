/**
 * What the remediator remembers about a node, as kept on the Node object itself: every change we made ("claims",
 * typed by {@link io.gpuremediator.state.ClaimKey}), which alerts hold each change, whether it was there before us, and
 * the alert episodes active on the node. A restart or a new leader reads it back; nothing else is needed. The
 * {@code kube} adapter stores it as a JSON annotation.
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.state;
