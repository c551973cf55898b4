/**
 * Cloud maintenance before it happens: the cloud's scheduled events of the selected nodes' instances (EC2
 * {@code DescribeInstanceStatus}: a reboot, a maintenance, a retirement or a stop) become the alert
 * {@code CloudMaintenanceScheduled}, fired to the engine as a webhook would be, a lead time before the event may start,
 * and resolved once the event is over, cancelled or gone; the shipped playbook drains before and releases after.
 *
 * <p>Uses: {@code alert}, {@code node}, {@code outbound}, {@code state}; libraries: {@code org.slf4j}.
 */
package io.gpuremediator.maintenance;
