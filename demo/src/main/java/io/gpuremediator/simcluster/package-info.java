/**
 * The simulated cluster: the fabric8 mock API server in CRUD mode, run as a standalone process on
 * 127.0.0.1, seeded with the simulator's nodes (labels, InternalIPs, capacity, Ready) and a training
 * job's pods, and a kubeconfig that points at it. The remediator connects through that kubeconfig
 * exactly as it would to a real cluster; nothing in the remediator knows it is simulated.
 */
package io.gpuremediator.simcluster;
