/**
 * What the remediator knows of a Kubernetes node, independent of any client library: the node record, the API
 * server's validation rules for names and fields, label selectors, how an alert's labels resolve to a node, and the
 * {@link io.gpuremediator.node.Cluster} port through which nodes are read and written; {@code kube} implements it.
 *
 * <p>Uses: {@code bounded}, {@code decision}, {@code state}, {@code threads}, {@code yaml}; libraries: the JDK only.
 */
package io.gpuremediator.node;
