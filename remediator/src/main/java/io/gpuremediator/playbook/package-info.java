/**
 * The playbook model: which alerts a playbook matches (Alertmanager matchers), the steps it runs and undoes (each
 * an {@link io.gpuremediator.playbook.ActionSpec}, whose record lives with its kind in {@code action}), its templates,
 * and the immutable set of loaded playbooks. Knows nothing of decoding files, of Vert.x or of fabric8.
 *
 * <p>Uses: {@code value}, {@code yaml}; libraries: the JDK only.
 */
package io.gpuremediator.playbook;
