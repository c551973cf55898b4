/**
 * What the service keeps and spends, bounded: maps that forget their eldest entry past a size, so that a flood of names
 * (alerts for made-up nodes, episodes, ledgers) costs a fixed amount of heap; and the token bucket that paces a rate
 * (the API server's requests, a client's, the refusals' Events).
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.bounded;
