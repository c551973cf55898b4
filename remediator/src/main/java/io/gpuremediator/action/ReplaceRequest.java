package io.gpuremediator.action;

import java.time.Duration;

/**
 * What a replace step asks of its provider ({@link Replacement}): the provider, what a cluster-api replacement does to
 * the Machine, and how long the Node object has to go.
 */
record ReplaceRequest(String provider, ReplaceVia via, Duration timeout) {}
