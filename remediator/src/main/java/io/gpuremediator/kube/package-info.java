/**
 * The Kubernetes adapter: the only package that imports the fabric8 client. Implements the
 * {@link io.gpuremediator.node.Cluster} port with a watch-fed node cache, optimistic-concurrency node
 * writes, Events, and the JSON form of the node ledger annotation. Retriable versus permanent failures
 * are decided from HTTP status codes, never from message text.
 */
package io.gpuremediator.kube;
