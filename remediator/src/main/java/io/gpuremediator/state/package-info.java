/**
 * What the remediator remembers about a node, as kept on the Node object itself: every change we
 * made ("claims"), which alerts hold each change, whether it was there before us, and the alert
 * episodes active on the node. A restart or a new leader reads it back; nothing else is needed.
 * JDK only; the {@code kube} adapter stores it as a JSON annotation.
 */
package io.gpuremediator.state;
