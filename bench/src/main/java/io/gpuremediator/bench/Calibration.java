package io.gpuremediator.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * A fixed CPU-bound loop, timed: how fast this machine is right now, so that figures from different machines,
 * or from one shared machine at different moments, can be compared. Single-threaded, no allocation, no I/O.
 */
final class Calibration {
  private static final long STEPS = 1L << 28;
  private static final int ROUNDS = 5;

  private Calibration() {}

  /** The loop's best and median time over a few rounds, as one line. */
  static String line() {
    double[] seconds = new double[ROUNDS];
    long sink = 0;
    for (int r = 0; r < ROUNDS; r++) {
      long started = System.nanoTime();
      sink += xorshift(STEPS, r + 1);
      seconds[r] = (System.nanoTime() - started) / 1e9;
    }
    Arrays.sort(seconds);
    return String.format(Locale.ROOT, "calibration: %,d xorshift64 steps, best %.3f s, median %.3f s of %d (checksum %x)",
        STEPS, seconds[0], seconds[ROUNDS / 2], ROUNDS, sink & 0xfff);
  }

  private static long xorshift(long steps, long seed) {
    long x = 0x9E3779B97F4A7C15L * seed;
    for (long i = 0; i < steps; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }
}
