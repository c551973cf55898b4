/**
 * What the service keeps in memory, bounded: maps that forget their eldest entry past a size, so that a flood of names
 * (alerts for made-up nodes, episodes, ledgers) costs a fixed amount of heap.
 *
 * <p>Uses: no other package of ours; libraries: the JDK only.
 */
package io.gpuremediator.bounded;
