package io.gpuremediator.simapi;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The part of a pod's log a {@code GET .../log} asks for: {@code tailLines} (the last lines), {@code limitBytes}. */
final class PodLogs {
  private static final Pattern TAIL = Pattern.compile("[?&]tailLines=(\\d+)");
  private static final Pattern LIMIT = Pattern.compile("[?&]limitBytes=(\\d+)");

  private PodLogs() {}

  static String select(String log, String query) {
    String out = log;
    Matcher tail = query == null ? null : TAIL.matcher(query);
    if (tail != null && tail.find()) {
      String[] lines = out.split("\n", -1);
      int n = Integer.parseInt(tail.group(1));
      int last = out.endsWith("\n") ? lines.length - 1 : lines.length;
      int from = Math.max(0, last - n);
      out = String.join("\n", Arrays.copyOfRange(lines, from, lines.length));
    }
    Matcher limit = query == null ? null : LIMIT.matcher(query);
    if (limit != null && limit.find()) {
      byte[] bytes = out.getBytes(StandardCharsets.UTF_8);
      long max = Long.parseLong(limit.group(1));
      if (bytes.length > max) {
        out = new String(bytes, 0, (int) max, StandardCharsets.UTF_8);
      }
    }
    return out;
  }
}
