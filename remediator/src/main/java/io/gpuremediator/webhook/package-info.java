/**
 * The Alertmanager webhook (version 4) over HTTP: a strict streaming decoder that bounds nesting
 * depth, rejects duplicate keys and names the offending field in every error, and the Vert.x handler
 * that authenticates, bounds the body, decides every alert off the event loop and answers per the
 * API contract. Depends on {@code alert}, {@code engine}, {@code decision}, {@code metrics}, Jackson
 * core and Vert.x Web.
 */
package io.gpuremediator.webhook;
