package io.gpuremediator.safety;

/**
 * What one limit has used of what it allows now.
 *
 * @param limit the limit's config key, with the value it counts when it has several ({@code domains[zone=a]})
 * @param detail how it counts, in words
 */
public record LimitUsage(String limit, int used, int allowed, String detail) {
  /** How much is left (never negative). */
  public int left() {
    return Math.max(0, allowed - used);
  }
}
