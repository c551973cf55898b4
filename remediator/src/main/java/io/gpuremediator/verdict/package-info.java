/**
 * What a diagnostic says the next rung is: the failures of a DCGM diagnostic document ({@code dcgmi diag -j}), each
 * with DCGM's own error id, severity and category, read into one {@link io.gpuremediator.verdict.Verdict} of a
 * {@link io.gpuremediator.verdict.Rung} (reset the GPU, reboot the node, send it to service), so that a step's
 * {@code on_verdict} can take the rung the fault needs instead of one {@code on_fail} for every failure.
 *
 * <p>Uses: nothing of ours; libraries: {@code com.fasterxml.jackson}.
 */
package io.gpuremediator.verdict;
