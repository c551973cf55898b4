/**
 * The command line: {@code serve}, {@code validate} and {@code explain}, as in the design contract. Each command
 * prints plain text and returns its exit code; {@link io.gpuremediator.cli.Main} only dispatches.
 *
 * <p>Uses: {@code config}, {@code decision}, {@code episode}, {@code http}, {@code kube}, {@code node},
 * {@code playbook.load}, {@code safety}, {@code service}, {@code yaml}; libraries: {@code org.yaml}.
 */
package io.gpuremediator.cli;
