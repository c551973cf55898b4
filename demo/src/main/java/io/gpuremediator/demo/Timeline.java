package io.gpuremediator.demo;

import io.gpuremediator.pipeline.PipelineEvents;
import java.io.PrintStream;
import java.time.Duration;

/** Prints what happens, each line stamped with the time since the story began. */
public final class Timeline implements PipelineEvents {
  private final PrintStream out;
  private final boolean verbose;
  private long start = System.nanoTime();

  public Timeline(PrintStream out, boolean verbose) {
    this.out = out;
    this.verbose = verbose;
  }

  /** Restarts the clock. */
  public synchronized void begin() {
    start = System.nanoTime();
  }

  public synchronized Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - start);
  }

  public synchronized void chapter(String title) {
    out.println();
    out.println("── " + title);
  }

  /** One event: {@code [mm:ss.s] tag     text}. */
  public synchronized void at(String tag, String text) {
    out.printf("[%s] %-7s %s%n", clock(elapsed()), tag, text);
  }

  /** A continuation line under the last event. */
  public synchronized void note(String text) {
    out.println("                  " + text);
  }

  public synchronized void plain(String text) {
    out.println(text);
  }

  @Override
  public synchronized void started(String name, long pid, String address, Duration took) {
    out.printf("  started %-15s pid %-8d %-16s ready in %4.1f s%n", name, pid, address, took.toMillis() / 1000.0);
  }

  @Override
  public synchronized void notified(String text) {
    at("notify", "gpu-oncall received: " + text);
  }

  @Override
  public synchronized void webhook(String body, String answer) {
    if (verbose) {
      at("webhook", "Alertmanager -> remediator, raw body:");
      body.lines().forEach(l -> out.println("                    " + l));
      note("answer: " + answer);
    }
  }

  static String clock(Duration d) {
    long tenths = d.toMillis() / 100;
    return String.format("%02d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10);
  }

  /** A duration for a person: 2.8 s, or 2m04s. */
  static String human(Duration d) {
    return d.toSeconds() < 60 ? String.format("%.1f s", d.toMillis() / 1000.0) : String.format("%dm%02ds", d.toMinutes(), d.toSecondsPart());
  }
}
