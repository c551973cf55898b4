/**
 * {@code make demo}: the scripted story played on the whole loop (see {@code io.gpuremediator.pipeline}),
 * printed as a timeline a person can follow; the end-to-end test plays the same story and asserts its
 * outcomes.
 */
package io.gpuremediator.demo;
