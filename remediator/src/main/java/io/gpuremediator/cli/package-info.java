/**
 * The command line: {@code serve}, {@code validate} and {@code explain}, as in the design contract.
 * Each command prints plain text and returns its exit code; {@link io.gpuremediator.cli.Main} only
 * dispatches.
 */
package io.gpuremediator.cli;
