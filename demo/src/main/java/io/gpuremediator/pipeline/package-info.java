/**
 * The whole loop on 127.0.0.1, as processes: the DCGM simulator, the simulated cluster, Prometheus with
 * {@code rules/} and {@code dcgm/}'s scrape config, Alertmanager with {@code alerts/}, and the remediator
 * with the shipped playbooks. The project's own files are used as they are; only what cannot be the same
 * on one machine is rewritten (addresses, the token file, Kubernetes service discovery, and the 1 s
 * intervals and Alertmanager group timers that make the loop fast, with each rule group's own interval shortened in
 * the same proportion). Every process is stopped by PID.
 */
package io.gpuremediator.pipeline;
