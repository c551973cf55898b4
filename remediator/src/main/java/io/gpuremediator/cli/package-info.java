/**
 * The command line: {@code serve}, {@code validate}, {@code explain} and {@code backtest}, as in the design contract.
 * Each command prints plain text and returns its exit code; {@link io.gpuremediator.cli.Main} only dispatches.
 * {@code serve} also sets the form of the process's log lines ({@code log_format}), the one place that knows logging
 * is logback's.
 *
 * <p>Uses: {@code backtest}, {@code config}, {@code decision}, {@code episode}, {@code http}, {@code kube}, {@code node},
 * {@code playbook}, {@code playbook.load}, {@code safety}, {@code service}, {@code value}, {@code yaml}; libraries:
 * {@code org.yaml}, {@code ch.qos.logback}, {@code net.logstash.logback}, {@code org.slf4j}.
 */
package io.gpuremediator.cli;
