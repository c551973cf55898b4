/**
 * A Kubernetes API server for tests and the demo: the fabric8 mock server in CRUD mode over real HTTP on
 * a loopback address, plus what it lacks of the real API server, reproduced from its documented behaviour:
 * pods listed and watched by the field selector {@code spec.nodeName}, the policy/v1 Eviction subresource checked
 * against the PodDisruptionBudgets in the store (429 with a DisruptionBudget cause, 500 for several
 * budgets, the budget's disruptionsAllowed spent), throttling, pod logs, and Dynamic Resource Allocation's device
 * taints ({@link DynamicResources}: ResourceSlices by field, DeviceTaintRules validated, the eviction controller), and
 * the size limits of a ConfigMap's data and an object's annotations ({@link ObjectLimits}). Reads are answered from
 * indexes, as the API server's watch cache answers them ({@link IndexedStore}): the mock scanned its whole store for
 * each request, which no API server does, and at 100,000 nodes that cost every read and write the whole store.
 * Where the mock itself misbehaves as no API server does, it is worked around here and says so: a watch that closes
 * while its events are sent no longer blocks an event loop nor loses a write's answer ({@link ClosesOffTheEventLoop}).
 */
package io.gpuremediator.simapi;
