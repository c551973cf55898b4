/**
 * The playbook model: which alerts a playbook matches (Alertmanager matchers), the actions it runs
 * and undoes (one record per action kind), its templates, and the immutable set of loaded playbooks.
 * Knows nothing of YAML, Vert.x or fabric8.
 */
package io.gpuremediator.playbook;
