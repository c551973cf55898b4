package io.gpuremediator.node;

import java.time.Instant;

/** A core/v1 Event about a node. {@code type} is {@code Normal} or {@code Warning}. */
public record NodeEvent(String node, String type, String reason, String message, Instant time) {}
