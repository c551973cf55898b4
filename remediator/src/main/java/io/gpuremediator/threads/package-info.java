/**
 * The service's own threads: each named for what it does (as a thread dump shows it) and a daemon, so that none
 * holds the JVM up once the service has stopped.
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.threads;
