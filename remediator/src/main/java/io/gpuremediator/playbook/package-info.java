/**
 * The playbook model: which alerts a playbook matches (Alertmanager matchers), the steps it runs and undoes
 * (one spec record per step kind), its templates, and the immutable set of loaded playbooks. Knows nothing of YAML
 * decoding, Vert.x or fabric8.
 *
 * <p>Uses: {@code node}, {@code value}, {@code yaml}; libraries: the JDK only.
 */
package io.gpuremediator.playbook;
